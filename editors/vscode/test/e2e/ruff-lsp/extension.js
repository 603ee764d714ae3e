// A test-only VS Code extension: a real language server for Python (`ruff server`, from the test's Python) through
// vscode-languageclient, so the e2e sees diagnostics the way a user with a Python extension does.
const { LanguageClient } = require("vscode-languageclient/node");

let client;

exports.activate = async () => {
  const python = process.env.AGENT_TEST_RUFF_PYTHON;
  if (!python) return;
  client = new LanguageClient(
    "testRuff",
    "Test Ruff",
    { command: python, args: ["-m", "ruff", "server"] },
    { documentSelector: [{ scheme: "file", language: "python" }] },
  );
  await client.start();
};

exports.deactivate = () => client?.stop();
