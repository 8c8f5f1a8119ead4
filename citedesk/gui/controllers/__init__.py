"""The window's small controllers: one per thing the writer does with a document (open and save,
audit, fix, review, sources).

They hold the behaviour, the widgets hold the looks: a controller drives the editor and the panels
and calls the desk (off the GUI thread, through `gui.ops`); only `gui.main_window` assembles them.
"""
