import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

const config = [
  ...nextVitals,
  ...nextTs,
  {
    // Tests read untyped JSON answers from the API.
    files: ['tests/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    ignores: ['.next/**', '.next-*/**', 'node_modules/**', 'lib/db/generated/**', 'test-results/**', 'playwright-report/**', 'bench/results/**', 'next-env.d.ts'],
  },
];

export default config;
