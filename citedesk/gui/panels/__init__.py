"""The panes around the editor: findings (view and model), sources, the evidence view and the
status bar.

Panels show what the controllers hand them; they may take a style from the editor's marks
(`editor.highlighter`, `editor.hover_card`) so a finding looks the same everywhere, but never import
a controller, a dialog or the window.
"""
