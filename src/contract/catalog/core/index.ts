/** The 30 core primitives of docs/decisions/A08.md, in catalog order (docs/contract-conventions.md#primitive-catalog). */
import { collectionPrimitives } from './collection.ts';
import type { CorePrimitive } from './define.ts';
import { displayPrimitives } from './display.ts';
import { feedbackPrimitives } from './feedback.ts';
import { formPrimitives } from './form.ts';
import { inputPrimitives } from './input.ts';
import { layoutPrimitives } from './layout.ts';
import { pagePrimitives } from './page.ts';

export type { CorePrimitive } from './define.ts';

/** Every core primitive with its props schema and examples. */
export const corePrimitives: readonly CorePrimitive[] = [
  ...collectionPrimitives,
  ...inputPrimitives,
  ...formPrimitives,
  ...layoutPrimitives,
  ...pagePrimitives,
  ...displayPrimitives,
  ...feedbackPrimitives,
];
