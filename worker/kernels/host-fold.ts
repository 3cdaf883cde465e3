/**
 * Integer and bool programs on the addon (native-cpu, cuda): the addon computes the elementwise
 * part in float64 and native/chunk-call.ts casts it to int32 / int64 / bool as the js interpreter
 * does; a reduction's chunk step then folds that block here, with the js reference's exact int64
 * sums and products (BigInt, wrapping as NumPy's), which the addon's float64 accumulators would
 * round beyond 2**53. Float programs reduce in the addon.
 */
import type { ChunkProgram, ChunkValue } from '../../common/arrays';
import { chunkReduce } from './js/reduce';

/** Runs `program` with `run` (an addon call); an integer or bool program's reduction folds on the host. */
export async function runFolding(program: ChunkProgram, run: (p: ChunkProgram) => Promise<ChunkValue>): Promise<ChunkValue> {
  if (!program.reduce || program.dtype === 'float64' || program.dtype === 'float32') return run(program);
  const { reduce, ...elementwise } = program;
  const block = await run(elementwise);
  if (block.kind !== 'array') throw new Error(`an integer or bool program's block came back as a ${block.kind}`);
  return { kind: 'partial', partial: chunkReduce(block.array, reduce) };
}
