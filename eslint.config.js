// Lint: the rules that guard the boundaries. User text is parsed, never evaluated: eval, the
// Function constructor and string timers are errors everywhere.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['.*/**', 'node_modules/**', 'out/**', 'dist/**', 'native/build/**', '.device/**', '.devbuild/**', 'bench/results/**', 'test-results/**'] },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.mjs'],
    // The timers are declared so no-implied-eval recognises setTimeout("code").
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module', globals: { setTimeout: 'readonly', setInterval: 'readonly', setImmediate: 'readonly', window: 'readonly' } },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      'no-restricted-syntax': ['error', { selector: "NewExpression[callee.name='Function']", message: 'new Function is forbidden: parse, never evaluate.' }],
    },
  },
);
