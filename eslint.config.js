// Lint: the rules that guard the boundaries. User text is parsed, never evaluated: eval, the
// Function constructor and string timers are errors everywhere. And one for start-up time: zod is
// imported as a namespace. And the layers of docs/design.md: imports go down
// (bin -> main -> worker -> native, all of them onto common/; the renderer onto common/ only), and
// no import cycles (lint/import-rules.mjs).
import tseslint from 'typescript-eslint';
import gpuflowImports, { LAYERS } from './lint/import-rules.mjs';

export default tseslint.config(
  { ignores: ['.*/**', 'node_modules/**', 'out/**', 'dist/**', 'native/build/**', '.device/**', '.devbuild/**', 'bench/results/**', 'test-results/**'] },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.mjs'],
    // The timers are declared so no-implied-eval recognises setTimeout("code").
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module', globals: { setTimeout: 'readonly', setInterval: 'readonly', setImmediate: 'readonly', window: 'readonly' } },
    plugins: { '@typescript-eslint': tseslint.plugin, gpuflow: gpuflowImports },
    rules: {
      'gpuflow/layers': ['error', { allowed: LAYERS }],
      'gpuflow/no-cycle': ['error', { folders: Object.keys(LAYERS) }],
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      // `{ z }` is zod's whole namespace as one object: the bundles (bin/build-bundles.mjs) then
      // carry all of zod (750 KB, about 40 ms of start-up in main and in every worker) instead of
      // the part we use (210 KB).
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Function']", message: 'new Function is forbidden: parse, never evaluate.' },
        { selector: "ImportDeclaration[source.value='zod'] > :matches(ImportSpecifier[imported.name='z'], ImportDefaultSpecifier)", message: "import * as z from 'zod': the whole of zod otherwise loads at every start (eslint.config.js says why)." },
      ],
    },
  },
);
