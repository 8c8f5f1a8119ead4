"""The text widget and what is drawn on or beside it: the marks (highlighter, legend), the line
numbers, the hover card over a mark, the find bar, citation completion, and the UTF-16 offset map
between Qt's positions and the document's.

Kept apart so the editor can be read (and changed) without the window: it imports the action table
(`gui.actions`), the ops runner (`gui.ops`) and Qt (`gui.qt`), never a panel, dialog or controller.
"""
