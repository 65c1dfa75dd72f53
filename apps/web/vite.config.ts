import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

/**
 * The API reference renderer of /docs (Scalar) uses zod too. Sharing the app's copy would put
 * every zod feature Scalar uses into the vendor chunk every page loads; its own copy (an npm
 * alias of the same version) keeps them in the /docs chunks.
 */
function scalarOwnZod(): Plugin {
  return {
    name: "scalar-own-zod",
    enforce: "pre",
    resolveId(source, importer, options) {
      // Scalar's packages and the AI SDK its agent chat brings (it imports zod/v3).
      if (!importer || !/[\\/]node_modules[\\/](@scalar|@ai-sdk|ai)[\\/]/.test(importer))
        return null;
      if (source !== "zod" && !source.startsWith("zod/")) return null;
      return this.resolve(source.replace(/^zod/, "zod-for-scalar"), importer, {
        ...options,
        skipSelf: true,
      });
    },
  };
}

export default defineConfig({
  plugins: [react(), scalarOwnZod()],
  build: {
    outDir: "dist",
    assetsDir: "assets",
    emptyOutDir: true,
    sourcemap: false,
    rolldownOptions: {
      // Building a zod schema has no side effects: a schema nothing uses is dropped, so a screen
      // that takes only a message or a constant from a contracts module does not load zod.
      treeshake: { manualPureFunctions: ["z"] },
      output: {
        // Long-cached vendor chunks that change less often than the app code.
        codeSplitting: {
          groups: [
            {
              name: "react",
              test: /node_modules[\\/](react|react-dom|scheduler|wouter|regexparam)[\\/]/,
            },
            // The libraries the shell runs; anything else (the API reference renderer of /docs and
            // its Vue runtime) stays in the chunks of the pages that import it.
            {
              name: "vendor",
              test: /node_modules[\\/]@tanstack[\\/](react-query|query-core)[\\/]/,
            },
            // zod (the forms' zod/mini schemas), loaded with the first screen that has a form, not by the shell.
            {
              name: "zod",
              // Top-level package only: a nested copy (a renderer's own zod 3) stays out.
              test: /^(?!.*node_modules.*node_modules).*node_modules[\\/]zod[\\/]/,
            },
            // The form libraries, loaded with the first screen that has a form (not by the shell).
            {
              name: "forms",
              test: /^(?!.*node_modules.*node_modules).*node_modules[\\/](react-hook-form|@hookform)[\\/]/,
            },
          ],
        },
      },
    },
  },
  server: {
    port: 5173,
    proxy: {
      "/api": { target: "http://127.0.0.1:8080", changeOrigin: false },
    },
  },
});
