// Runs first in `npm start` and `npm test` (package.json "pre" scripts): the one
// place a too-old Node.js would otherwise fail obscurely. Node runs only npm and Bun's installer
// here (the service and its tests run on Bun), so the minimum is package.json's `engines.node`.
// Written for any Node: no syntax newer than ES5, no modules.
var engines = require("../package.json").engines || {};
var wanted = /(\d+)/.exec(engines.node || "") || [];
var minimum = Number(wanted[1] || 0);
var version = process.versions.node;
var major = Number(String(version).split(".")[0]);
if (!(major >= minimum)) {
  process.stderr.write(
    "svc-agents needs Node.js " + minimum + " or newer to install and run its npm scripts (found " + version + ").\n" +
      "Install a current Node.js (https://nodejs.org) and run the command again.\n",
  );
  process.exit(1);
}
