/**
 * Builds the press kit served at /press-kit/: the logo as SVG and PNG, a one-page fact sheet
 * (PDF) and a zip of the three. Sources live in apps/web/press-kit/; run this after changing
 * them (`node scripts/press-kit.ts`) and commit the output in apps/web/public/press-kit/.
 * Uses Debian's Chromium through playwright-core, like the end-to-end tests.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { crc32 } from "node:zlib";
import { chromium } from "playwright-core";

const ROOT = resolve(import.meta.dirname, "..");
const SRC = join(ROOT, "apps/web/press-kit");
const OUT = join(ROOT, "apps/web/public/press-kit");

/** A zip (stored, no compression) of `files`. */
export function zip(
  files: { name: string; data: Buffer }[],
  date = new Date(2026, 10, 23),
): Buffer {
  const dosTime = (date.getHours() << 11) | (date.getMinutes() << 5);
  const dosDate =
    ((date.getFullYear() - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate();
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const f of files) {
    const name = Buffer.from(f.name, "utf8");
    const crc = crc32(f.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(0, 8);
    local.writeUInt16LE(dosTime, 10);
    local.writeUInt16LE(dosDate, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(f.data.length, 18);
    local.writeUInt32LE(f.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt16LE(dosTime, 12);
    central.writeUInt16LE(dosDate, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(f.data.length, 20);
    central.writeUInt32LE(f.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, f.data);
    centrals.push(central, name);
    offset += local.length + name.length + f.data.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

if (import.meta.main) {
  mkdirSync(OUT, { recursive: true });
  copyFileSync(join(SRC, "keepsake-logo.svg"), join(OUT, "keepsake-logo.svg"));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 720, height: 192 } });
    await page.goto(pathToFileURL(join(SRC, "keepsake-logo.svg")).href);
    await page.screenshot({ path: join(OUT, "keepsake-logo.png"), omitBackground: true });
    await page.goto(pathToFileURL(join(SRC, "fact-sheet.html")).href);
    await page.pdf({
      path: join(OUT, "keepsake-fact-sheet.pdf"),
      format: "A4",
      printBackground: true,
    });
  } finally {
    await browser.close();
  }
  const names = ["keepsake-logo.svg", "keepsake-logo.png", "keepsake-fact-sheet.pdf"];
  const kit = zip(names.map((name) => ({ name, data: readFileSync(join(OUT, name)) })));
  writeFileSync(join(OUT, "keepsake-press-kit.zip"), kit);
  console.log(`press kit written to ${OUT}`);
}
