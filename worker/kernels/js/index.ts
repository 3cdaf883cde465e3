/** The `js` backend: pure TypeScript reference kernels, always present, the oracle of the others. */
import type { ArrayBackend } from '../backend';
import { runProgram } from './program';

export function createJsBackend(): ArrayBackend {
  return {
    name: 'js',
    supportsProgram: () => true,
    runProgram: async (program, inputs) => runProgram(program, inputs),
  };
}
