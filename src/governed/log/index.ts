/**
 * The verifiable audit log (docs/verifiable-history.md): keys and signed notes, checkpoints,
 * proofs and the verifier. Runtime-neutral: WebCrypto Ed25519, no `node:*` import.
 */
export { generateNoteKey, noteSigner, noteVerifier, verifierKeyOf, type NoteSigner, type NoteVerifier } from './note-keys.ts';
export { checkpointBody, parseCheckpoint, parseNote, signNote, noteSignedBy, type Checkpoint, type ParsedNote } from './note.ts';
export { createCheckpoints, type Checkpoints, type VerifiableLogOptions } from './checkpoints.ts';
export { consistencyProofOf, inclusionProofOf, proofBundleOf, type ConsistencyProofView, type InclusionProofView, type ProofBundleView } from './proofs.ts';
export { verifyLog, VerifyLogError, type VerifyLogOptions, type VerifyLogResult } from './verify.ts';
export { verifyInclusion, verifyConsistency } from '../../storage/merkle/tree.ts';
export { leafHash, nodeHash } from '../../storage/merkle/hash.ts';
export { leafData, LEAF_FORMAT, type LeafOpenings } from '../../storage/merkle/leaf.ts';
export { verifyProofBundle } from './verify-bundle.ts';
export { exportLogNdjson, ndjsonLogSource } from './ndjson.ts';
