import js from "@eslint/js";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import importX from "eslint-plugin-import-x";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

/**
 * The server's layers, lowest first: a domain may import the ones below it, never one above
 * it nor the /api/auth dispatcher (api.server.ts) that sits on top of them all. Type-only
 * imports are allowed (they vanish at run time).
 */
const SERVER_LAYERS = ["auth", "organization", "sso", "billing", "webhooks", "admin"];
const importOf = (target) => `^(~/server/|(\\.\\./)+)${target}`;
const layerRules = SERVER_LAYERS.map((layer, index) => ({
  files: [`app/server/${layer}/**/*.ts`],
  rules: {
    "@typescript-eslint/no-restricted-imports": [
      "error",
      {
        patterns: [
          ...SERVER_LAYERS.slice(index + 1).map((above) => ({
            regex: importOf(`${above}/`),
            allowTypeImports: true,
            message: `${layer} sits below ${above}: move the code up, or let ${above} register a step (see deletion.server.ts).`,
          })),
          {
            regex: importOf("api\\.server$"),
            allowTypeImports: true,
            message: "The dispatcher sits on top: domains export endpoint tables, they never import it.",
          },
        ],
      },
    ],
  },
}));

export default tseslint.config(
  {
    ignores: [
      "build/",
      "generated/",
      ".react-router/",
      "node_modules/",
      "test-results/",
      "playwright-report/",
      "tests/artifacts/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "warn",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-control-regex": "off",
      "no-restricted-syntax": [
        "error",
        {
          // `_count: { select: { members: true } }` inside a query (not groupBy's `_count: { _all }`).
          selector: "Property[key.name='_count'] > ObjectExpression > Property[key.name='select']",
          message:
            "Prisma counts a relation by grouping its whole table (every organization's rows, for one): count with a `where` instead (decision 0037).",
        },
      ],
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "react-i18next",
              importNames: ["useTranslation"],
              message: "Use useTranslation from ~/lib/translations (cached per language and namespace).",
            },
          ],
        },
      ],
    },
  },
  {
    // No runtime import cycles: a module's imports must finish evaluating before it does.
    // Type-only imports vanish at run time and may go both ways.
    files: ["app/**/*.{ts,tsx}", "server.ts"],
    plugins: { "import-x": importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      "import-x/resolver-next": [createTypeScriptImportResolver()],
    },
    rules: { "import-x/no-cycle": ["error", { ignoreExternal: true }] },
  },
  ...layerRules,
);
