/** The governed HTTP behaviour suite on the in-memory driver. */
import { memoryStorage } from 'cellgate';
import { describeGovernedBehaviour } from './behaviour.ts';

describeGovernedBehaviour('memory', () => memoryStorage());
