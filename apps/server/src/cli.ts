import { createAdminRepository } from "./auth/index.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { openDatabase } from "./runtime.ts";

const USAGE = "Usage: npm run cli -- make-admin <email>";

async function makeAdmin(email: string): Promise<number> {
  const { database, close } = await openDatabase(loadConfig());
  try {
    const user = await createAdminRepository(database.db).makeAdminByEmail(email);
    if (!user) {
      console.error(`No user with e-mail ${email}. Register first, then run this again.`);
      return 1;
    }
    console.log(`${user.email} is now an administrator.`);
    return 0;
  } finally {
    await close();
  }
}

async function main(args: string[]): Promise<number> {
  const [command, email, ...rest] = args;
  if (command === "make-admin" && email && rest.length === 0) return makeAdmin(email);
  console.error(USAGE);
  return 2;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exitCode = 1;
}
