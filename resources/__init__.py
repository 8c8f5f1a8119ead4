"""Files that ship with CiteDesk (installed as the data package `citedesk.resources`): the samples
with their local sources, and the icon. `citedesk.assets` says where they are; nothing here runs."""
