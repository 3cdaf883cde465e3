// Module resolution hook: the specifier 'electron' (out/main/app.js's dynamic import) is the fake.
const fake = new URL('./electron.ts', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (specifier === 'electron') return { url: fake, shortCircuit: true };
  return next(specifier, context);
}
