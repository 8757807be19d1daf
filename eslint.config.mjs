// ESLint for the whole repository (`npm run lint` runs it with Prettier and knip). Type-aware rules
// from typescript-eslint, React's hooks rules, Next's rules on the pages; Prettier owns the layout,
// so eslint-config-prettier turns every formatting rule off. A rule turned off says why on its line.
import js from '@eslint/js'
import nextPlugin from '@next/eslint-plugin-next'
import prettier from 'eslint-config-prettier'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.next/',
      '.data/',
      'dist/',
      // The license client's build (npm pack makes it).
      'packages/*/dist/',
      'media/',
      'test-results/',
      'playwright-report/',
      // Generated: Payload writes these from the collections (npm run generate:*), and the migrations.
      'src/payload-types.ts',
      'src/db/schema.generated.ts',
      'src/app/(payload)/admin/importMap.js',
      'migrations/',
      'next-env.d.ts',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.mjs', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // A caught rejection is passed on as it came, whatever it is.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // React's event props take `() => void`; an async handler there is the idiom (it catches its own errors).
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  {
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['src/**/*.tsx', 'src/app/**/*.ts'],
    plugins: { 'react-hooks': reactHooks, '@next/next': nextPlugin },
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...nextPlugin.configs.recommended.rules,
      ...nextPlugin.configs['core-web-vitals'].rules,
      // Off: pages link with plain <a> on purpose. A full load of a cached page needs no client router,
      // and <Link> would prefetch every visible link's payload on a phone's connection.
      '@next/next/no-html-link-for-pages': 'off',
      // Off: images are the CMS's uploads served with their width and height; Next's optimizer would be a
      // second resizing path beside Payload's own.
      '@next/next/no-img-element': 'off',
    },
  },
  {
    files: ['tests/**', 'packages/*/tests/**'],
    rules: {
      // Off in tests: they read answers as untyped JSON on purpose (hostile and broken shapes included),
      // and expect() is the type check; typing every body would restate each assertion.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  prettier,
)
