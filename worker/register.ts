/**
 * Loads each area's task handlers into the registry (worker/handlers.ts). Each area's module
 * registers thin handlers that import their heavy kernels (TensorFlow.js, Arrow) on first use,
 * so a worker that never trains a model never loads TensorFlow.js.
 */
export async function registerAreaHandlers(): Promise<void> {
  // Areas add one line each.
  await import('./kernels/arrays/register');
  await import('./kernels/tfjs/register');
  await import('./kernels/df/register');
}
