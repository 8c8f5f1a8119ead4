"""Sentences in the writer's own voice: theirs to write, never a claim that needs a source.

A thesis or a report speaks about itself ("Chapter 3 reviews…", "In this chapter I argue…"),
tells the reader what to do ("See Table 2", "Click Save"), gives a way to reach its author
("Contact: jane@uni.edu") and labels its figures ("Figure 3: Canopy cover…"). None of these states
a fact about the world, and a warning on them is noise that hides the real findings. Each test
here is narrow on purpose: a sentence that only looks like one of them ("Type 2 diabetes…",
"Open defecation…", "Press freedom…") must stay a candidate claim.
"""

from __future__ import annotations

import re

SIGNPOSTING = "signposting or the writer's own argument"
CONTACT = "a contact line"
INSTRUCTION = "an instruction to the reader"
CAPTION = "a caption"

_PART = r"(?:thesis|dissertation|chapter|section|part|book|essay|article|paper|report|study|work|project|appendix)"
_SIGNPOST = re.compile(
    # the document's parts speaking: "Chapter 3 reviews", "Sections 2 and 3 describe", "This thesis examines"
    rf"(?:chapters?|sections?|parts?|appendix|appendices)\s+[A-Z]?\d+(?:\.\d+)*"
    rf"(?:\s*(?:,|and|to|-|–)\s*[A-Z]?\d+(?:\.\d+)*)*\s*,?\s+(?:then\s+|briefly\s+|also\s+|first\s+)?\w+s?\b"
    rf"|(?:this|the present|the current|the (?:next|following|previous|preceding|final|last|first|second|"
    rf"third|remaining|concluding)|the rest of this|the remainder of this|each)\s+{_PART}s?\b"
    rf"|(?:in|throughout|across|within)\s+(?:this|the (?:next|following|previous|preceding|present|current|"
    rf"remaining|final|last|concluding))\s+{_PART}s?\b"
    rf"|(?:in|throughout)\s+(?:sections?|chapters?|parts?)\s+\d"
    # the writer's own argument: "I argue", "We now turn to", "My aim is"
    r"|(?:i|we)\s+(?:then\s+|now\s+|also\s+|first\s+|next\s+|further\s+|therefore\s+|briefly\s+|here\s+)?"
    r"(?:argue|argued|propose|contend|claim that|maintain|suggest|show|outline|describe|discuss|present|"
    r"review|examine|explore|consider|focus|turn|return|begin|start|conclude|summari[sz]e|introduce|"
    r"set out|lay out|develop|defend|ask|address|investigate|assess|evaluate|situate|trace|reflect|"
    r"hypothesi[sz]e|define|call|refer|use the term|adopt|take|follow|build|draw|offer|close|end)\b"
    r"|(?:my|our)\s+(?:aim|argument|claim|contention|thesis|purpose|goal|focus|concern|question|"
    r"hypothesis|contribution|approach|interest|intention)s?\b"
    r"|the\s+(?:aim|purpose|goal|focus|argument|structure|scope|contribution)s?\s+of\s+(?:this|the present)\b"
    r"|(?:it|this)\s+(?:is|was)\s+(?:argued|proposed|suggested)\s+(?:here|in this)\b"
    r"|(?:as|like)\s+(?:discussed|noted|argued|shown|described|mentioned|outlined|explained)\s+"
    r"(?:above|below|earlier|previously|in (?:chapter|section|the (?:previous|last|next)))"
    r"|(?:having|before)\s+(?:established|described|discussed|reviewed|outlined|considered|turning)\b"
    r"|(?:turning|moving|returning)\s+(?:now\s+)?to\b"
    r"|(?:the\s+)?(?:research\s+)?questions?\s+(?:guiding|addressed\s+in)\s+this\b",
    re.IGNORECASE,
)

_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_URL = re.compile(
    r"\b(?:https?://|www\.)\S+|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|edu|gov|ac\.uk|io)(?:/\S*)?\b"
)
_PHONE = re.compile(r"(?<![\w.])\+?\(?\d{2,5}\)?(?:[\s-]\d{2,5}){2,4}(?![\w.])")
_PATH = re.compile(
    r"(?<!\S)(?:[\w.~-]*/)+[\w.-]+|\b[\w-]+\.(?:csv|txt|py|r|md|json|xlsx?|docx?|pdf|tex|bib|sav|dta)\b",
    re.IGNORECASE,
)
_CONTACT_LABEL = re.compile(
    r"^(?:contact(?:\s+(?:details|information))?|e-?mail|tel(?:ephone)?|phone|mobile|fax|address|"
    r"postal address|correspondence|corresponding author|office|website|web|orcid|twitter)\b\s*[:.–-]",
    re.IGNORECASE,
)
_CONTACT_VERB = re.compile(
    r"\b(?:contact|e-?mail|write to|call|reach|phone|tel(?:ephone)?|enquiries|queries)\b", re.IGNORECASE
)

_DIRECT = (
    r"the|a|an|this|that|these|those|your|my|our|its|their|each|every|all|any|both|it|them|him|her|me|us|"
    r"on|at|to|into|onto|out|off|here|again|below|above|carefully"
)
_IMPERATIVE = re.compile(
    # an imperative followed by what only an imperative is followed by ("Run the script", "Open it"),
    # never by a bare noun ("Open defecation…", "Press freedom…", "Check fraud…", "Use of…")
    r"^(?:please\s+)?(?:click|double-click|right-click|see|run|open|close|select|choose|press|type|enter|"
    r"save|install|download|upload|visit|consult|read|follow|check|copy|paste|edit|set|add|remove|"
    r"delete|replace|drag|drop|tap|scroll|navigate|go|log|sign|contact|call|email|e-mail|write|send|"
    r"submit|refer|turn|compare|repeat|restart|launch|load|import|export|print|use|find|look|keep|"
    r"store|label|rename|move|insert|fill|complete|tick|mark|attach|skip)\s+"
    rf"(?:(?:{_DIRECT})\b|``)",
    re.IGNORECASE,
)
_POINTER = re.compile(
    # a pointer or a UI label, capitalised as written: "See Table 2", "Click Save", "Press Enter"
    r"^(?:Please\s+)?(?:[Cc]lick|Double-click|Right-click|See|[Ss]elect|Choose|Press|Tap|Refer to|Cf\.?|"
    r"Compare)\s+(?:[\"'“‘]|[A-Z])"
)
_HORTATIVE = re.compile(
    r"^(?:please|do not|don't|remember to|be sure to|make sure|ensure that|note that|n\.b\.)\b",
    re.IGNORECASE,
)

CODE_PLACEHOLDER = "``"
"""What a code span reads as in the words claim detection sees: no word, no figure, but a subject
that `_DESCRIBES_CODE` can recognise ("The `night_temp` column holds …")."""
_DESCRIBES_CODE = re.compile(
    r"^(?:the|a|an|each|every|this|our|my)?\s*``\s*(?:column|field|function|method|class|module|package|"
    r"flag|option|argument|parameter|variable|script|command|file|folder|directory|table|key|setting|"
    r"call|step|line|program|library|object|value)s?\b"
    r"|\b(?:is|are|was|were)\s+(?:stored|saved|kept|archived|held|deposited|available|provided|"
    r"included|listed|reproduced)\s+(?:as|in|at|on|from|upon|with)\s+(?:a|an|the|this|my|our)?\s*"
    r"(?:csv|excel|json|text|data|spreadsheet|file|files|folder|repository|archive|appendix|supplementary|"
    r"online|request|github|zenodo|osf|``)",
    re.IGNORECASE,
)
CODE = "describes the writer's own code or files"

_CAPTION = re.compile(
    r"^(?:figure|fig\.|table|chart|map|plate|listing|box|exhibit|graph|diagram|photo|image|illustration|"
    r"panel|supplementary (?:figure|table))\s*[A-Z]?\d+(?:\.\d+)*[a-z]?\s*(?:[:.–—|](?!\d)|-\s|\))"
    r"|^(?:table|figure|listing|source|sources|notes?|caption|key|legend)\s*:",
    re.IGNORECASE,
)


def without_addresses(text: str) -> str:
    """`text` with e-mail addresses, web addresses, phone numbers and file paths blanked: none of
    them is a figure, a date or a source, though their characters look like one ("research@uni.edu",
    "data/2021.csv", "+44 20 7946 0958")."""
    for pattern in (_EMAIL, _URL, _PATH):
        text = pattern.sub(" ", text)
    return text


def own_voice(text: str) -> str | None:
    """Why `text` is in the writer's own voice (one of the reasons above), or None."""
    if _CAPTION.match(text):
        return CAPTION
    if is_contact(text):
        return CONTACT
    if is_instruction(text):
        return INSTRUCTION
    if _DESCRIBES_CODE.search(text):
        return CODE
    if _SIGNPOST.match(text):
        return SIGNPOSTING
    return None


def is_caption(text: str) -> bool:
    """Whether `text` opens a caption ("Figure 3: …", "Table 2.", "Source: …"): the block it opens
    is the caption, every sentence of it."""
    return bool(_CAPTION.match(text))


def is_contact(text: str) -> bool:
    """A way to reach someone: a contact label, or an e-mail address or phone number said as one."""
    if _CONTACT_LABEL.match(text):
        return True
    if _EMAIL.search(text):
        return True
    return bool(_PHONE.search(text) and _CONTACT_VERB.search(text))


def is_instruction(text: str) -> bool:
    """An imperative to the reader ("Click Save", "See Table 2", "Run the script again")."""
    return bool(_IMPERATIVE.match(text) or _POINTER.match(text) or _HORTATIVE.match(text))
