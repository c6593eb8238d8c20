// ESLint flat config (`npm run lint`, run first by `npm test`): typescript-eslint's recommended
// rules for the TypeScript and eslint-plugin-vue's recommended rules for the components. The
// rules here catch mistakes; layout is Prettier's job (`npm run format`, checked by `npm run lint`),
// so eslint-config-prettier turns every layout rule off, last.
import js from '@eslint/js';
import pluginVue from 'eslint-plugin-vue';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import prettierConfig from 'eslint-config-prettier';

export default tseslint.config(
  {
    ignores: [
      'client/dist/**',
      'data/**',
      'docs/results/**',
      'test/screenshots/**',
      // Modules that must not parse or that are deliberately wrong: the grader's test inputs.
      'test/fixtures/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...pluginVue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
  },
  { languageOptions: { globals: { ...globals.node } } },
  { files: ['client/**/*.{ts,vue}'], languageOptions: { globals: { ...globals.browser } } },
  {
    rules: {
      // `const { type: _t, ...rest } = m` leaves a field out on purpose: a leading _ says so.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // Starting points for a student: they show every parameter of the contract, used or not.
    files: ['shared/grader/examples/*.js'],
    rules: { '@typescript-eslint/no-unused-vars': ['error', { args: 'none' }] },
  },
  {
    // Templates declare what her code will need (`from`, the election id) before her code exists.
    files: ['shared/grader/templates/*.js'],
    rules: { '@typescript-eslint/no-unused-vars': 'off' },
  },
  {
    // Tests, benchmarks and tools read REST answers field by field as parsed JSON; the product
    // code (shared/, server/, client/) keeps the rule.
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  prettierConfig,
);
