import { ensureWebBuild } from "../../scripts/web-build.ts";

/** The end-to-end suite runs against the built SPA, exactly as `npm start` serves it. */
export default function setup() {
  ensureWebBuild();
}
