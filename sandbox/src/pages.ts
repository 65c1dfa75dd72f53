import { escapeHtml as h } from "./util.ts";

export function page(title: string, css: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${h(title)}</title><style>
*{box-sizing:border-box}body{margin:0}button{font:inherit;cursor:pointer}
.sandbox-note{position:fixed;bottom:8px;right:10px;font:11px/1.3 system-ui,sans-serif;color:#8a8a8a;background:rgba(255,255,255,.85);padding:3px 8px;border-radius:6px}
${css}</style></head><body>${body}<div class="sandbox-note">Keepsake provider sandbox — no real account is used</div></body></html>`;
}

export function hidden(fields: Record<string, string | undefined>): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${h(k)}" value="${h(v!)}">`)
    .join("");
}

const INSTAGRAM_CSS = `
body{font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;background:#fafafa;color:#262626;display:flex;justify-content:center;padding:40px 12px}
.card{background:#fff;border:1px solid #dbdbdb;border-radius:3px;width:380px;padding:32px 36px 24px;text-align:center}
.logo{font-family:"Billabong","Brush Script MT","Segoe Script",cursive;font-size:46px;margin:0 0 10px;background:linear-gradient(45deg,#f09433,#e6683c,#dc2743,#cc2366,#bc1888);-webkit-background-clip:text;background-clip:text;color:transparent}
.lead{color:#737373;font-size:15px;font-weight:600;margin:0 0 20px;line-height:20px}
.accounts{text-align:left;margin:0 0 16px;border:1px solid #efefef;border-radius:8px}
.acct{display:flex;align-items:center;gap:12px;padding:10px 12px;border-bottom:1px solid #efefef;cursor:pointer}
.acct:last-child{border-bottom:0}.acct:hover{background:#fafafa}
.acct input{accent-color:#0095f6}
.avatar{width:40px;height:40px;border-radius:50%;background:linear-gradient(45deg,#f09433,#bc1888);color:#fff;display:flex;align-items:center;justify-content:center;font-weight:700;flex:none}
.uname{font-weight:600;font-size:14px}.meta{font-size:12px;color:#737373}
.perm{font-size:13px;color:#262626;text-align:left;background:#fafafa;border-radius:8px;padding:10px 12px;margin:0 0 18px}
.btn{display:block;width:100%;border:0;border-radius:8px;padding:9px;font-weight:600;font-size:14px;margin-top:8px}
.primary{background:#0095f6;color:#fff}.primary:hover{background:#1877f2}
.secondary{background:#efefef;color:#262626}
.small{font-size:12px;color:#737373;margin-top:18px}
.error{color:#ed4956}`;

export interface AccountChoice {
  value: string;
  title: string;
  subtitle: string;
  initial: string;
}

function choices(name: string, items: AccountChoice[], avatarClass = "avatar"): string {
  return items
    .map(
      (a, i) =>
        `<label class="acct"><input type="radio" name="${name}" value="${h(a.value)}"${i === 0 ? " checked" : ""}>` +
        `<span class="${avatarClass}">${h(a.initial)}</span><span><div class="uname">${h(a.title)}</div>` +
        `<div class="meta">${h(a.subtitle)}</div></span></label>`,
    )
    .join("");
}

export function instagramAuthorize(opts: {
  action: string;
  appName: string;
  accounts: AccountChoice[];
  fields: Record<string, string | undefined>;
  scopes: string[];
}): string {
  return page(
    "Log in • Instagram",
    INSTAGRAM_CSS,
    `<main class="card"><h1 class="logo">Instagram</h1>
<p class="lead">Log in to continue to <b>${h(opts.appName)}</b></p>
<form method="post" action="${h(opts.action)}">${hidden(opts.fields)}
<div class="accounts" role="radiogroup" aria-label="Demo accounts">${choices("account", opts.accounts)}</div>
<div class="perm"><b>${h(opts.appName)}</b> would like to access:<br>• your profile info and media (${h(opts.scopes.join(", "))})</div>
<button class="btn primary" name="decision" value="allow" type="submit">Allow</button>
<button class="btn secondary" name="decision" value="cancel" type="submit">Cancel</button>
</form><p class="small">Demo accounts — pick one; no password needed.</p></main>`,
  );
}

export function providerError(
  brand: "instagram" | "facebook" | "google",
  title: string,
  message: string,
): string {
  const css = brand === "google" ? GOOGLE_CSS : brand === "facebook" ? FACEBOOK_CSS : INSTAGRAM_CSS;
  return page(
    title,
    css,
    `<main class="card"><h1 class="${brand === "instagram" ? "logo" : "title"}">${brand === "instagram" ? "Instagram" : h(title)}</h1><p class="error">${h(message)}</p></main>`,
  );
}

const FACEBOOK_CSS = `
body{font-family:Helvetica,Arial,sans-serif;background:#f0f2f5;color:#1c1e21;margin:0}
.bar{background:#fff;box-shadow:0 1px 2px rgba(0,0,0,.1);padding:10px 20px}
.fb{font-size:30px;font-weight:700;color:#1877f2;letter-spacing:-1px}
.card{background:#fff;border-radius:8px;box-shadow:0 2px 4px rgba(0,0,0,.1),0 8px 16px rgba(0,0,0,.1);width:420px;margin:40px auto;padding:24px}
.title{font-size:20px;font-weight:700;margin:0 0 6px}
.lead{color:#606770;font-size:14px;margin:0 0 18px}
.accounts{border:1px solid #dddfe2;border-radius:6px;margin-bottom:16px}
.acct{display:flex;gap:12px;align-items:center;padding:10px 12px;border-bottom:1px solid #dddfe2;cursor:pointer}
.acct:last-child{border-bottom:0}.acct:hover{background:#f5f6f7}
.avatar{width:40px;height:40px;border-radius:50%;background:#1877f2;color:#fff;display:flex;align-items:center;justify-content:center;font-weight:700}
.uname{font-weight:600}.meta{color:#606770;font-size:12px}
.perm{background:#f5f6f7;border-radius:6px;padding:10px 12px;font-size:13px;margin-bottom:18px}
.btn{display:block;width:100%;border:0;border-radius:6px;padding:10px;font-size:16px;font-weight:700;margin-top:8px}
.primary{background:#1877f2;color:#fff}.secondary{background:#e4e6eb;color:#4b4f56}
.small{font-size:12px;color:#8a8d91;margin-top:14px}.error{color:#be4b49}`;

export function facebookDialog(opts: {
  action: string;
  appName: string;
  users: AccountChoice[];
  fields: Record<string, string | undefined>;
  scopes: string[];
}): string {
  return page(
    "Log in with Facebook",
    FACEBOOK_CSS,
    `<div class="bar"><span class="fb">facebook</span></div><main class="card">
<h1 class="title">Log in to ${h(opts.appName)}</h1>
<p class="lead">Choose a demo Facebook account to continue.</p>
<form method="post" action="${h(opts.action)}">${hidden(opts.fields)}
<div class="accounts" role="radiogroup" aria-label="Demo accounts">${choices("user", opts.users)}</div>
<div class="perm">${h(opts.appName)} is requesting: ${h(opts.scopes.join(", ") || "public_profile")}</div>
<button class="btn primary" name="decision" value="allow" type="submit">Continue</button>
<button class="btn secondary" name="decision" value="cancel" type="submit">Cancel</button>
</form><p class="small">By continuing, ${h(opts.appName)} will receive the permissions listed above.</p></main>`,
  );
}

const GOOGLE_CSS = `
body{font-family:"Google Sans",Roboto,Arial,sans-serif;background:#f0f4f9;color:#1f1f1f;display:flex;justify-content:center;padding:48px 12px}
.card{background:#fff;border-radius:28px;width:880px;max-width:100%;padding:36px 40px;display:flex;gap:40px;flex-wrap:wrap}
.left{flex:1;min-width:260px}.right{flex:1.3;min-width:300px}
.g{font-size:26px;font-weight:500;letter-spacing:-.5px;margin-bottom:16px}
.g span:nth-child(1){color:#4285f4}.g span:nth-child(2){color:#ea4335}.g span:nth-child(3){color:#fbbc05}.g span:nth-child(4){color:#4285f4}.g span:nth-child(5){color:#34a853}.g span:nth-child(6){color:#ea4335}
.title{font-size:32px;font-weight:400;margin:0 0 12px;line-height:1.2}
.lead{font-size:15px;color:#444746}
.acct{display:flex;gap:12px;align-items:center;padding:12px 8px;border-bottom:1px solid #e1e3e1;text-decoration:none;color:inherit}
.acct:hover{background:#f6f8fc}
.avatar{width:32px;height:32px;border-radius:50%;color:#fff;display:flex;align-items:center;justify-content:center;font-weight:500;flex:none}
.uname{font-size:14px;font-weight:500}.meta{font-size:12px;color:#444746}
.chip{display:inline-flex;gap:8px;align-items:center;border:1px solid #c4c7c5;border-radius:16px;padding:3px 10px 3px 4px;font-size:14px}
.scope{display:flex;gap:12px;align-items:flex-start;padding:14px 0;border-bottom:1px solid #e1e3e1;font-size:14px}
.scope input{width:18px;height:18px;accent-color:#0b57d0;margin-top:1px}
.scope .icon{width:18px;height:18px;border-radius:50%;background:#e8eaed;flex:none}
.actions{display:flex;justify-content:flex-end;gap:8px;margin-top:24px}
.btn{border-radius:20px;padding:10px 24px;font-size:14px;font-weight:500;border:0}
.primary{background:#0b57d0;color:#fff}.secondary{background:transparent;color:#0b57d0}
.small{font-size:12px;color:#444746;margin-top:16px;line-height:1.5}.error{color:#b3261e}`;

const GOOGLE_LOGO = `<div class="g" aria-label="Google"><span>G</span><span>o</span><span>o</span><span>g</span><span>l</span><span>e</span></div>`;
const AVATAR_COLORS = ["#1a73e8", "#e8710a", "#188038", "#a142f4", "#d93025"];

export function googleChooser(opts: {
  appName: string;
  accounts: { email: string; name: string; href: string }[];
}): string {
  const rows = opts.accounts
    .map(
      (a, i) =>
        `<a class="acct" href="${h(a.href)}"><span class="avatar" style="background:${AVATAR_COLORS[i % 5]}">${h(a.name[0] ?? "?")}</span>` +
        `<span><div class="uname">${h(a.name)}</div><div class="meta">${h(a.email)}</div></span></a>`,
    )
    .join("");
  return page(
    "Sign in - Google Accounts",
    GOOGLE_CSS,
    `<main class="card"><div class="left">${GOOGLE_LOGO}<h1 class="title">Choose an account</h1>
<p class="lead">to continue to <b>${h(opts.appName)}</b></p></div>
<div class="right" role="list" aria-label="Demo Google accounts">${rows}
<p class="small">Demo Google accounts — no password needed.</p></div></main>`,
  );
}

export const DRIVE_FILE_TEXT =
  "See, edit, create and delete only the specific Google Drive files you use with this app";

export function googleConsent(opts: {
  action: string;
  appName: string;
  account: { email: string; name: string };
  fields: Record<string, string | undefined>;
  requiredScopes: string[];
  driveRequested: boolean;
}): string {
  const required = opts.requiredScopes
    .map((s) => `<div class="scope"><span class="icon"></span><span>${h(s)}</span></div>`)
    .join("");
  const drive = opts.driveRequested
    ? `<label class="scope"><input type="checkbox" name="drive_file" value="on" checked><span>${h(DRIVE_FILE_TEXT)}</span></label>`
    : "";
  return page(
    `Sign in - Google Accounts`,
    GOOGLE_CSS,
    `<main class="card"><div class="left">${GOOGLE_LOGO}<h1 class="title">${h(opts.appName)} wants access to your Google Account</h1>
<span class="chip"><span class="avatar" style="background:#1a73e8;width:22px;height:22px;font-size:12px">${h(opts.account.name[0] ?? "?")}</span>${h(opts.account.email)}</span></div>
<div class="right"><form method="post" action="${h(opts.action)}">${hidden(opts.fields)}
<p class="lead">When you allow this access, <b>${h(opts.appName)}</b> will be able to:</p>
${required}${drive}
<p class="small">Make sure you trust ${h(opts.appName)}. You may be sharing sensitive info with this site or app. You can always see or remove access in your Google Account.</p>
<div class="actions"><button class="btn secondary" name="decision" value="cancel" type="submit">Cancel</button>
<button class="btn primary" name="decision" value="allow" type="submit">Continue</button></div>
</form></div></main>`,
  );
}
