/**
 * Where a trial's rows come from and how they are split (a DataSpec): built by main's compiler
 * (main/engine/ops/tuning/) and read by the worker's trial, predict and dataset-info tasks, so
 * both sides share this one schema. Synthetic sources are generated in the worker from their
 * seed; a table source names the task whose gathered table arrives as the task's input.
 */
import * as z from 'zod';

const count = z.number().int().positive();

export const dataSpecSchema = z.strictObject({
  source: z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('classification'),
      nSamples: count,
      nFeatures: count.optional(),
      nInformative: count.optional(),
      nRedundant: z.number().int().min(0).optional(),
      nClasses: count.optional(),
      classSep: z.number().positive().optional(),
      flipY: z.number().min(0).max(1).optional(),
      linearlySeparable: z.boolean().optional(),
      seed: z.number().int().min(0),
    }),
    z.strictObject({
      kind: z.literal('regression'),
      nSamples: count,
      nFeatures: count.optional(),
      nInformative: count.optional(),
      noise: z.number().min(0).optional(),
      bias: z.number().optional(),
      seed: z.number().int().min(0),
    }),
    z.strictObject({
      kind: z.literal('table'),
      /** The worker-side key of an Arrow table (a dataframe node's output). */
      ref: z.string().min(1),
      features: z.array(z.string()).min(1),
      target: z.string(),
      task: z.enum(['classification', 'regression']),
    }),
  ]),
  split: z.strictObject({
    validationFraction: z.number().gt(0).lt(1),
    seed: z.number().int().min(0),
    stratify: z.boolean().optional(),
  }),
});

export type DataSpec = z.infer<typeof dataSpecSchema>;
