from __future__ import annotations

import pytest

from citedesk.core.document.claims import assess


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        ("Unemployment fell to 3.7% in the second quarter.", "states a figure"),
        ("The bridge was completed in 1932 after six years of work.", "gives a date"),
        ("Researchers found that sleep loss impairs memory consolidation.", "reports a finding"),
        ("According to the ministry, exports are now booming.", "reports a finding"),
        ("A large survey of nurses points the other way entirely.", "refers to a study or source"),
        ('The minister called it "the worst decision in a generation of politics".', "quotes someone"),
        ("Electric cars are cheaper to run than petrol cars over their lifetime.", "makes a comparison"),
        ("It is the largest freshwater lake in Africa by area.", "makes a superlative claim"),
        ("Smoking causes most cases of lung cancer worldwide today.", "claims a cause or association"),
        ("Testing of soils in old towns found lead above guideline values.", "reports a finding"),
        ("We found that 40% of street trees died within five years.", "states a figure"),
        ("Table 2 shows that 40% of the trees died within five years.", "states a figure"),
        (
            "We used the method of Lee, who showed that shade halves heat stress in summer.",
            "reports a finding",
        ),
        (
            "We measured canopy cover, as Lee did, and they found that shade halves heat stress.",
            "reports a finding",
        ),
    ],
)
def test_factual_sentences_need_citations(sentence: str, reason: str) -> None:
    verdict = assess(sentence)
    assert verdict.needs_citation
    assert reason in verdict.reasons


@pytest.mark.parametrize(
    "sentence",
    [
        "What does this mean for cities?",
        "In this essay, we look at three ideas about heat.",
        "I think the answer is more complicated than that.",
        "Next, consider the costs.",
        "Let us turn to the evidence.",
        "That is all.",
        "We argue that planning should start with people.",
        "As discussed in @sec:methods, we measured shade with hemispherical photographs.",
        "Figure 1 maps canopy cover across the study area.",
        "Table 3 and Eq. (4) give the model used in Section 2.1 of this thesis.",
        "Figures 1 and 2 map canopy cover across the study area.",
        "Figures 1-3 map canopy cover across the study area.",
        "We identified three recurring themes in the interviews.",
        "She found her keys under the mat by the door.",
        "The police identified the suspect within hours of the attack.",
    ],
)
def test_framing_questions_and_transitions_do_not(sentence: str) -> None:
    assert not assess(sentence).needs_citation


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        # a study's finding said plainly, as abstracts and fact-checks say it (SciFact, COVID-Fact)
        ("Night shifts increases rates of migraine among hospital nurses.", "makes a comparison"),
        ("Daily walking reduces hospital admissions for heart failure.", "makes a comparison"),
        ("Children who sleep less are more likely to gain weight in adolescence.", "makes a comparison"),
        ("Chronic stress induces insulin resistance in older adults.", "claims a cause or association"),
        ("Muscle wasting in sepsis is mediated by inflammatory cytokines.", "claims a cause or association"),
        ("There is a strong relationship between air pollution and asthma.", "claims a cause or association"),
        ("Green space has a positive effect on the mood of city dwellers.", "claims a cause or association"),
        ("Regular reading improves the vocabulary of young children.", "claims a cause or association"),
    ],
)
def test_a_finding_said_without_figures_or_a_reporting_verb_needs_a_citation(
    sentence: str, reason: str
) -> None:
    verdict = assess(sentence)
    assert verdict.needs_citation
    assert reason in verdict.reasons


@pytest.mark.parametrize(
    "sentence",
    [
        "We argue that this framing improves on earlier accounts of heat.",
        "In this chapter, I show how shade reduces heat stress in our own survey.",
        "Next, consider how the design of the park improves the walk home.",
    ],
)
def test_the_writers_own_argument_with_an_effect_word_stays_quiet(sentence: str) -> None:
    assert not assess(sentence).needs_citation
