// CiteDesk for VS Code: starts `citedesk lsp` for Markdown, Quarto and LaTeX documents and passes
// it the `citedesk.*` settings (at start, and again whenever they change).
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

const SERVER_SETTINGS = ["offline", "judge", "strongJudge", "sources", "allowFolders"];
let client;

function serverSettings() {
  const config = vscode.workspace.getConfiguration("citedesk");
  const settings = {};
  for (const name of SERVER_SETTINGS) {
    const value = config.get(name);
    if (value !== null && value !== undefined && value !== "") {
      settings[name] = value;
    }
  }
  return settings;
}

function activate(context) {
  const command = vscode.workspace.getConfiguration("citedesk").get("path") || "citedesk";
  const languages = ["markdown", "quarto", "latex", "tex"];
  client = new LanguageClient(
    "citedesk",
    "CiteDesk",
    { command, args: ["lsp"] },
    {
      documentSelector: languages.map((language) => ({ language })),
      initializationOptions: serverSettings(),
      synchronize: { configurationSection: "citedesk" },
    }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
