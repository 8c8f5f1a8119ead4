"""Each reason an uncited finding gives is true of its sentence: tested one reason at a time, with
sentences that must get it and sentences that look alike but must not."""

from __future__ import annotations

import pytest

from citedesk.core.document.claims import assess
from citedesk.core.reading import parse_document

MUST: dict[str, list[str]] = {
    "states a figure": [
        "Unemployment fell to 3.7% in the second quarter.",
        "The scheme reached 12,000 homes across the county.",
    ],
    "states a figure in words": [
        "Nearly two thirds of households in the city have no air conditioning.",
        "A quarter of the region's flats were built as council housing.",
        "A third of the wells tested were contaminated with arsenic.",
        "Half of all new cars sold in Norway are electric.",
        "Heat deaths tripled between the two heatwaves.",
        "Rents have doubled in the city centre since the crisis.",
        "The new drug halved the rate of relapse in adults.",
        "One in five tenants sleeps in the living room in summer.",
        "The vast majority of respondents opposed the new road.",
        "Nearly a million people live alone in a top-floor flat.",
        "Forty per cent of the nurses had considered leaving the profession.",
        "Turnout fell by a third among voters under thirty.",
        "The effect was largest in girls, who lost almost an hour of sleep per night.",
        "Managers in twelve cities now limit the number of hives in small parks.",
    ],
    "gives a date": ["The bridge was completed in 1932 after six years of work."],
    "reports a finding": [
        "Researchers found that sleep loss impairs memory consolidation.",
        "According to the ministry, exports are now booming across the sector.",
    ],
    "refers to a study or source": [
        "A large survey of nurses points the other way entirely.",
        "A meta-analysis of school meals points to modest gains in attention.",
    ],
    "quotes someone": ['The minister called it "the worst decision in a generation of politics".'],
    "makes a comparison": ["Electric cars are cheaper to run than petrol cars over their lifetime."],
    "makes a superlative claim": [
        "It is the largest freshwater lake in Africa by area.",
        "The effect of the later school start was largest in girls in the final year.",
        "Hay fever is most common in late spring among city children.",
    ],
    "claims a cause or association": ["Smoking causes lung cancer in smokers and in their families."],
}

MUST_NOT: dict[str, list[str]] = {
    "states a figure": [
        "Contact the project at research@uni.edu or on the project site for the 2021 data.",
        "The survey results are kept in data/2021.csv with the cleaning scripts.",
        "Figure 3 maps canopy cover across the study area.",
    ],
    "states a figure in words": [
        "In the second half of the chapter the accounts of tenants are compared.",
        "Tenants in the third quarter of the estate were interviewed at home.",
        "The council hired a third party to inspect the blocks last winter.",
        "The roof absorbs most of the afternoon sun on the south side.",
        "One in particular stood out among the tenants who were interviewed.",
        "There are two ways to read the tenants' accounts in this chapter.",
        "Most tenants kept a diary, and twelve of them wrote in it daily.",
    ],
    "gives a date": ["Readings were kept in files such as data/2021.csv on the lab server."],
    "refers to a study or source": [
        "Contact: jane@uni.edu for questions about the survey data.",
        "Send your research questions to research@uni.edu or see www.uni.edu/research-data for details.",
        "Our survey reached tenants in every district of the city.",
        "This study follows tenants through two summers in their flats.",
    ],
}


@pytest.mark.parametrize(
    ("reason", "sentence"), [(reason, s) for reason, sentences in MUST.items() for s in sentences]
)
def test_a_sentence_that_has_the_signal_gets_the_reason(reason: str, sentence: str) -> None:
    verdict = assess(sentence)
    assert verdict.needs_citation, verdict
    assert reason in verdict.reasons, verdict


@pytest.mark.parametrize(
    ("reason", "sentence"), [(reason, s) for reason, sentences in MUST_NOT.items() for s in sentences]
)
def test_a_sentence_that_only_looks_like_it_does_not_get_the_reason(reason: str, sentence: str) -> None:
    assert reason not in assess(sentence).reasons


@pytest.mark.parametrize(
    ("sentence", "why"),
    [
        (
            "In this chapter I argue that indoor heat is a housing problem.",
            "signposting or the writer's own argument",
        ),
        (
            "This thesis examines purpose-built flats rather than converted houses.",
            "signposting or the writer's own argument",
        ),
        (
            "Section 2 describes the sensors and where they were placed.",
            "signposting or the writer's own argument",
        ),
        (
            "Chapter 3 reviews the literature on urban heat islands since 1990.",
            "signposting or the writer's own argument",
        ),
        (
            "In this section we describe the data used in the study.",
            "signposting or the writer's own argument",
        ),
        ("We now turn to the question of who bears the cost.", "signposting or the writer's own argument"),
        (
            "I propose to call this the summer penalty of retrofit.",
            "signposting or the writer's own argument",
        ),
        (
            "The next chapter describes how I measured overheating in 40 flats.",
            "signposting or the writer's own argument",
        ),
        ("Contact: jane@uni.edu, Department of Geography, for the survey data.", "a contact line"),
        ("E-mail: j.okafor@uni-north.ac.uk (preferred) or write to the department office.", "a contact line"),
        ("Phone: +44 161 555 0192 between 9 and 5 on weekdays.", "a contact line"),
        ("Address: Room 2.14, Arthur Lewis Building, Oxford Road, Manchester.", "a contact line"),
        ("For questions, call the study line on 0161 555 0192 any weekday.", "a contact line"),
        ("Click Save to keep the results of the 2021 survey.", "an instruction to the reader"),
        ("See Table 2 for the response rates by district.", "an instruction to the reader"),
        ("Run the script again after adding the 2022 readings.", "an instruction to the reader"),
        (
            "Note that the code below drops flats with fewer than three nights of readings.",
            "an instruction to the reader",
        ),
        ("Figure 3: Canopy cover across the study area in 2019.", "a caption"),
        ("Table 2. Survey response rates by district, 2021.", "a caption"),
        ("Source: author's survey of 412 tenants, 2023.", "a caption"),
    ],
)
def test_the_writers_own_voice_is_no_claim_and_says_why(sentence: str, why: str) -> None:
    assert assess(sentence) == type(assess(sentence))(False, (why,))


@pytest.mark.parametrize(
    "sentence",
    [
        "Type 2 diabetes affects one in ten adults in the country.",
        "Open defecation remains common in 40% of rural districts.",
        "Press freedom declined sharply in the region after 2015.",
        "Check fraud doubled in the decade to 2019 according to the banks.",
        "Use of antibiotics in farming rose by a third between 2010 and 2020.",
        "Figure skating injuries tripled among teenagers over the decade.",
        "Chapters of the union doubled their membership in the 1970s.",
        "We follow Lee, who found that shade halves heat stress in summer.",
    ],
)
def test_sentences_that_only_open_like_the_writers_voice_stay_claims(sentence: str) -> None:
    assert assess(sentence).needs_citation, assess(sentence)


def test_code_never_counts_and_headings_and_captions_are_no_sentences_to_flag() -> None:
    text = (
        "# Results for 2021: two thirds of flats overheated\n\n"
        "Run `python clean.py --year 2021 --survey data.csv` again before plotting.\n\n"
        "```\nthe survey data found 40% of trees died in 2020\n```\n\n"
        "Table 2. Survey response rates by district.\nResponses are shown as a share of 412 flats.\n\n"
        "The `tripled` flag marks the flats whose readings the 2020 survey data tripled.\n"
    )
    document = parse_document(text)
    assert all(not claim.needs_citation for claim in document.claims), [
        (c.text, c.reasons) for c in document.claims
    ]
    assert not any("two thirds" in s.text or "40%" in s.text for s in document.sentences)
    # the code is still shown in the sentence the writer wrote
    assert any("clean.py" in s.text for s in document.sentences)


def test_a_code_span_inside_a_claim_neither_makes_nor_unmakes_it() -> None:
    claims = parse_document(
        "Nearly two thirds of households ran `aircon --max` through the night.\n\n"
        "The tenants ran `report --year 2021 --survey` each week during the summer.\n"
    ).claims
    assert claims[0].needs_citation
    assert claims[0].reasons == ("states a figure in words",)
    assert not claims[1].needs_citation
