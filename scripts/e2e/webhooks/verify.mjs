// Verifies captured webhook deliveries with the Standard Webhooks reference
// library (npm "standardwebhooks"), as a real receiver would.
//
//   node verify.mjs FILE
//
// FILE holds a JSON array of {name, secret, headers, body}: headers has
// webhook-id, webhook-timestamp and webhook-signature, body is the exact
// request body as text. Prints a JSON array of {name, ok, error} on stdout,
// one per message, in order; exits 0 when it could check them (whatever
// the verdicts), 2 on bad usage.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { Webhook } = require("standardwebhooks");

if (process.argv.length !== 3) {
  console.error("usage: node verify.mjs FILE");
  process.exit(2);
}
const messages = JSON.parse(readFileSync(process.argv[2], "utf8"));
const results = messages.map((m) => {
  try {
    const payload = new Webhook(m.secret).verify(m.body, m.headers);
    // verify returns the parsed JSON body: it must be what was sent.
    if (JSON.stringify(payload) !== JSON.stringify(JSON.parse(m.body))) {
      return { name: m.name, ok: false, error: "payload differs from the body" };
    }
    return { name: m.name, ok: true };
  } catch (e) {
    return { name: m.name, ok: false, error: String(e && e.message ? e.message : e) };
  }
});
process.stdout.write(JSON.stringify(results) + "\n");
