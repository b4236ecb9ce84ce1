"""Deep research publishes only what its quotes state, and its coverage agrees with its report.

Scripted model (it drafts findings by rule from the evidence lines it is shown), sandbox web over
real HTTPS with an AND search, real Redis and SQLite. The code-side support checks
(``ditto_nb.evidence.support``) and the review's "not stated" verdict run before publishing;
rejected findings get the one repair, then are withheld (never published).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ditto_nb.patterns.deep_research import ResearchReport
from tests.patterns.deep_research.helpers import Rule, Script, bridge_corpus, evidence_lines, make_request, run, wiki

DESIGNER = Rule("Who designed the Zarnow Bridge?", r"designed by engineer [A-Z]\w+ [A-Z]\w+")
COMPLETED = Rule("When was the Zarnow Bridge completed?", r"completed in \d{4}")


@pytest.fixture
def config(scripted_config: Any, redis_url: str) -> Any:
    return scripted_config(redis_url=redis_url)


class Drafter:
    """The bridge script, whose report and repair replace sub-question 2's finding by ``bad``
    (statement, quote regex), and whose review can refuse finding n with "not stated"."""

    def __init__(self, rules: list[Rule], bad: tuple[str, str] | None = None, refuse: int = 0,
                 repair_keeps_only_bad: bool = False) -> None:
        self.script = Script(rules=rules, queries=["Zarnow Bridge"])
        self.bad = bad
        self.refuse = refuse
        self.repair_keeps_only_bad = repair_keeps_only_bad
        self.prompts: dict[str, list[str]] = {}

    def __call__(self, request: dict[str, Any]) -> Any:
        reply = self.script(request)
        purpose = self.script.purposes[-1]
        user = request["messages"][-1]["content"]
        self.prompts.setdefault(purpose, []).append(user)
        if purpose in ("report", "repair") and self.bad is not None:
            statement, pattern = self.bad
            found = [(eid, re.search(pattern, text)) for eid, _origin, text in evidence_lines(user)]
            eid, match = next((e, m) for e, m in found if m)
            reply["conclusions"] = [c for c in reply["conclusions"] if c["index"] != 2]
            reply["conclusions"].append({"index": 2, "statement": statement, "chunk_id": eid, "quote": match.group(0)})
            if purpose == "repair" and self.repair_keeps_only_bad:
                reply["conclusions"] = reply["conclusions"][-1:]
        if purpose == "review" and self.refuse:
            reply = {"verdicts": [{"n": self.refuse, "verdict": "not stated", "reason": "a different person"}],
                     "ok": False, "problems": ["finding not stated by its quote"]}
        return reply


def _consistent(report: ResearchReport) -> None:
    """Coverage agrees with the report: unknowns are exactly the sub-questions not covered."""
    not_covered = [row["question"] for row in report.coverage if row["status"] == "gap"]
    assert [u.split(":")[0] for u in report.unknowns] == [q.split(":")[0] for q in not_covered]
    assert (report.stop_reason == "coverage-complete") <= (not not_covered)
    assert (report.status == "complete") == (not not_covered)
    for row in report.coverage:
        if row["status"] == "covered":
            assert any(c.index == row["index"] for c in report.conclusions)


def test_date_absent_from_quote_is_rejected_repaired_once_then_withheld(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    web = sandbox_factory(bridge_corpus())
    bad = ("The Zarnow Bridge was completed on 4 May 1929.", r"The Zarnow Bridge was designed by [^.]*")
    drafter = Drafter([DESIGNER, COMPLETED], bad=bad)
    scripted_model.responder = drafter
    report = run(web, config, tmp_path / "task", make_request(web))
    assert isinstance(report, ResearchReport)
    # The review saw only the supported finding; the rejected one went to the one repair with its reason.
    assert drafter.script.purposes[-5:] == ["report", "review", "repair", "review", "coverage"]
    assert drafter.script.purposes.count("repair") == 1
    [repair_prompt] = drafter.prompts["repair"]
    assert "4 May 1929" in repair_prompt and "1929" in repair_prompt.split("Problems:")[1]
    assert "1929" not in drafter.prompts["review"][0]
    # Still unsupported after the repair: withheld with its reason, never published.
    [withheld] = report.withheld
    assert withheld["statement"] == bad[0]
    assert any("number(s) 1929" in r and "4" in r for r in withheld["reasons"])
    assert all("1929" not in c.statement for c in report.conclusions)
    assert [c.index for c in report.conclusions] == [1]
    # The summary is composed from what was published: no withheld statement, the gap named.
    assert "1929" not in report.summary and "Established: " in report.summary
    assert report.conclusions[0].statement.rstrip(".") in report.summary and "Not established: " in report.summary
    # The assessment called sub-question 2 covered; its only finding was withheld → gap, named in unknowns.
    assert report.rounds[-1]["coverage"][1]["status"] == "covered"
    assert [row["status"] for row in report.coverage] == ["covered", "gap"]
    assert "withheld" in report.coverage[1]["gap"]
    assert len(report.unknowns) == 1 and report.unknowns[0].startswith(COMPLETED.question)
    assert report.stop_reason == "no-progress" and report.status == "partial"
    _consistent(report)
    published = json.loads((tmp_path / "task" / "output" / "report.json").read_text())
    assert published["withheld"][0]["statement"] == bad[0]
    assert all("1929" not in c["statement"] for c in published["conclusions"])
    markdown = (tmp_path / "task" / "output" / "report.md").read_text()
    conclusions_md = markdown.split("## Conclusions")[1].split("## Withheld")[0]
    assert "1929" not in conclusions_md and "1929" in markdown.split("## Withheld")[1]


def test_a_supported_finding_the_repair_dropped_is_still_published(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    # Measured with the 1.5B model: the repair rewrote the draft with only the finding it was asked
    # to fix, and the topic's one supported answer (reviewed "supported") was lost.
    web = sandbox_factory(bridge_corpus())
    bad = ("The Zarnow Bridge was completed on 4 May 1929.", r"The Zarnow Bridge was designed by [^.]*")
    drafter = Drafter([DESIGNER, COMPLETED], bad=bad, repair_keeps_only_bad=True)
    scripted_model.responder = drafter
    report = run(web, config, tmp_path / "task", make_request(web))
    assert isinstance(report, ResearchReport)
    # the repaired draft holds only the still-unsupported finding: nothing left for a second review
    assert drafter.script.purposes[-4:] == ["report", "review", "repair", "coverage"]
    assert [c.index for c in report.conclusions] == [1]
    assert "Ilse Marrek" in report.conclusions[0].statement
    [withheld] = report.withheld
    assert withheld["statement"] == bad[0]
    assert [row["status"] for row in report.coverage] == ["covered", "gap"]
    _consistent(report)


def test_quote_about_a_different_entity_is_rejected(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    pages = [*bridge_corpus(),
             wiki("Lenne Cup", "The Lenne Cup captains were chosen by the coach, Hanna Velt, in 1931.")]
    web = sandbox_factory(pages)
    # "Ilse Marrek was a captain" cited with a genuine quote about how the captains were chosen, naming another person.
    bad = ("Ilse Marrek was a captain of the Lenne Cup team.", r"The Lenne Cup captains were chosen by [^.]*")
    rules = [DESIGNER, Rule("Was Ilse Marrek a Lenne Cup captain?", r"Lenne Cup captains")]
    drafter = Drafter(rules, bad=bad)
    scripted_model.responder = drafter
    report = run(web, config, tmp_path / "task", make_request(web, max_pages=4,
                                                             question="Zarnow Bridge, Ilse Marrek and the Lenne Cup"))
    assert isinstance(report, ResearchReport)
    assert all("captain" not in c.statement for c in report.conclusions), [(c.statement, c.quote) for c in report.conclusions]
    [withheld] = report.withheld
    assert any("Marrek" in r for r in withheld["reasons"])  # the quote never names her
    assert report.coverage[1]["status"] == "gap" and any(u.startswith(rules[1].question) for u in report.unknowns)
    _consistent(report)


def test_review_verdict_not_stated_is_enforced_by_code(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    web = sandbox_factory(bridge_corpus())
    drafter = Drafter([DESIGNER], refuse=1)
    scripted_model.responder = drafter
    report = run(web, config, tmp_path / "task", make_request(web))
    assert isinstance(report, ResearchReport)
    # The finding passes the lexical check; the review's verdict alone withholds it (after the one repair).
    assert "Statement: Designed by engineer Ilse Marrek" in drafter.prompts["review"][0]
    assert 'Quote: "designed by engineer Ilse Marrek"' in drafter.prompts["review"][0]
    assert drafter.script.purposes[-4:] == ["report", "review", "repair", "review"]
    assert report.conclusions == []
    assert report.withheld and "a different person" in report.withheld[0]["reasons"][0]
    assert report.coverage[0]["status"] == "gap" and report.stop_reason != "coverage-complete"
    _consistent(report)


def test_empty_first_round_leads_to_reformulated_second_round(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    web = sandbox_factory(bridge_corpus())  # AND search: no page holds "Westphalia" and "Zarnow" together
    script = Script(rules=[Rule("Who was its designer?", DESIGNER.fact)],
                    queries=["Zarnow Bridge of Westphalia designer"])
    scripted_model.responder = script
    report = run(web, config, tmp_path / "task",
                 make_request(web, question="Who designed the Zarnow Bridge of Westphalia?"))
    assert isinstance(report, ResearchReport)
    first, second = report.rounds[:2]
    assert first["reads"] == [] and first["new_evidence"] == 0 and first["assessed"] is False
    assert first["next_queries"] and not {q.lower() for q in first["next_queries"]} & {q.lower() for q in first["queries"]}
    assert second["queries"] == first["next_queries"] and second["new_evidence"] > 0
    assert any("Zarnow_Bridge" in url for url in second["reads"])
    assert report.stop_reason == "coverage-complete" and report.stop_reason != "no-progress"
    assert script.purposes == ["research-plan", "assess", "report", "review", "coverage"]  # no assessment spent on round 1
    assert [c.quote for c in report.conclusions] == ["designed by engineer Ilse Marrek"]
    assert report.budgets["search"]["unused"] == report.budgets["search"]["limit"] - report.budgets["search"]["used"] > 0
    assert "unused)" in (tmp_path / "task" / "output" / "report.md").read_text()
    _consistent(report)


def test_two_empty_rounds_stop_no_progress_with_budget_shown(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    web = sandbox_factory([wiki("Lenne river", "The Lenne is a river in Westphalia with many bridges.")])
    script = Script(rules=[Rule("Who was its designer?", DESIGNER.fact)], queries=["Quorvath Span designer"])
    scripted_model.responder = script
    report = run(web, config, tmp_path / "task", make_request(web, question="Who designed the Quorvath Span?"))
    assert isinstance(report, ResearchReport)
    assert report.stop_reason == "no-progress"
    assert [r["new_evidence"] for r in report.rounds] == [0, 0] and len(report.rounds) == 2
    assert report.rounds[1]["queries"] == report.rounds[0]["next_queries"] != []
    assert report.budgets["model"]["unused"] > 0 and report.unknowns
    _consistent(report)


def test_page_titled_with_the_sub_questions_entity_ranks_first() -> None:
    from ditto_nb.patterns.deep_research.evidence import rank, select_for_report

    def item(eid: str, title: str, text: str) -> dict[str, Any]:
        return {"id": eid, "title": title, "text": text, "chunk_id": f"c{eid}", "final_url": f"https://w.test/{eid}",
                "origin": "https://w.test"}

    evidence = [item("E1", "Lenne Cup", "Ilse Marrek captain Lenne Cup captains chosen Hanna Velt 1931 venue."),
                item("E2", "Lenne Cup", "The Lenne Cup final was played at the Zarnow stadium."),
                item("E3", "Ilse Marrek (engineer)", "She was born in Kessendorf in 1897."),
                item("E4", "Hanna Velt", "Hanna Velt coached the team.")]
    coverage = [{"index": 1, "question": "Was Ilse Marrek a captain?", "status": "covered",
                 "evidence_ids": ["E1"]},
                {"index": 2, "question": "Who coached the team, Hanna Velt?", "status": "gap", "evidence_ids": []}]
    selected, _ = select_for_report(evidence, coverage, ["Ilse Marrek", "Lenne Cup"], limit=3)
    # Round-robin: each sub-question's own entity page first (E3 for Ilse Marrek, E4 for Hanna Velt).
    assert [s["id"] for s in selected] == ["E3", "E4", "E1"]  # then the assessed evidence
    assert rank(evidence, ["Where was Ilse Marrek born?"])[0]["id"] == "E3"


class Unquoted(Drafter):
    """The bridge script whose findings name their evidence id but carry no quote (the local
    model's grammar has no quote field): code quotes the item's sentence that states each one."""

    def __call__(self, request: dict[str, Any]) -> Any:
        reply = super().__call__(request)
        if self.script.purposes[-1] in ("report", "repair"):
            reply["conclusions"] = [{k: v for k, v in c.items() if k != "quote"} for c in reply["conclusions"]]
        return reply


def test_findings_without_quotes_get_the_sentence_of_their_evidence_that_states_them(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    web = sandbox_factory(bridge_corpus())
    drafter = Unquoted([DESIGNER, COMPLETED])
    scripted_model.responder = drafter
    report = run(web, config, tmp_path / "task", make_request(web))
    assert isinstance(report, ResearchReport) and report.conclusions
    for conclusion in report.conclusions:
        # the picked quote is a sentence of the cited evidence that carries the finding's fact
        fact = re.search(r"[A-Z]\w+ [A-Z]\w+$|\d{4}", conclusion.statement.rstrip("."))
        assert fact is not None and fact.group(0) in conclusion.quote, (conclusion.statement, conclusion.quote)
        assert conclusion.quote.endswith(".") and len(conclusion.quote) < len(conclusion.statement) + 200
    assert len(report.conclusions) == 2 and not report.withheld
    _consistent(report)


def test_stop_reasons_are_the_spec_eight() -> None:
    """SPEC §4 fixes the stop reasons; a report never carries another."""
    from ditto_nb.patterns.deep_research import STOP_REASONS

    assert set(STOP_REASONS) == {"coverage-complete", "round-budget", "search-budget", "page-budget",
                                 "model-budget", "deadline", "no-progress", "clarification"}


def test_one_published_finding_per_fact() -> None:
    from ditto_nb.patterns.common.report_records import ConclusionItem
    from ditto_nb.patterns.deep_research.published import distinct
    from ditto_nb.patterns.deep_research.synthesis import complete_quotes

    quote = "Animorphs is a series written by Katherine Applegate, writing under the name K. A. Applegate."
    cut = complete_quotes({"summary": "", "unknowns": [], "conclusions": [
        {"index": 1, "statement": "Animorphs is a series written under the name K. A. …", "chunk_id": "E1",
         "quote": quote}]}, [])["conclusions"][0]["statement"]
    assert cut == "Animorphs is a series written under the name K. A."  # not an excerpt: the mark goes
    whole = complete_quotes({"summary": "", "unknowns": [], "conclusions": [
        {"index": 1, "statement": "Animorphs is a series written by Katherine Applegate, writing under …",
         "chunk_id": "E1", "quote": quote}]}, [])["conclusions"][0]["statement"]
    assert whole == quote  # an excerpt cut where the chunk was cut: its quote's sentence, whole

    def finding(statement: str, quote: str = quote) -> ConclusionItem:
        return {"index": 1, "statement": statement, "quote": quote, "evidence_id": "E1", "title": "Animorphs"}

    longer = finding("Animorphs is a series written by Katherine Applegate under the name K. A. Applegate.")
    other_quote = finding(cut, quote="Animorphs is a series. It was written under the name K. A. Applegate.")
    kept = [finding(cut), longer, finding(cut), other_quote]
    # the cut statement restates words of the longer one with the same quote: one finding stays,
    # and a statement quoted from another sentence is another finding
    assert [c["statement"] for c in distinct(kept)] == [longer["statement"], cut]
    assert distinct([finding(cut), finding(cut)]) == [finding(cut)]


def test_a_statement_labelled_with_its_question_states_what_follows_the_label() -> None:
    # held-out topic: the label's words made code decide "Where was the film shot?" covered by a
    # sentence that does not say where the film was shot
    from ditto_nb.patterns.deep_research.answers import states_its_words
    from ditto_nb.patterns.deep_research.synthesis import complete_quotes

    quote = "Big Stone Gap is a 2014 American comedy film written and directed by Adriana Trigiani."
    labelled = {"index": 1, "statement": "Where was the film 'Big Stone Gap' shot?: Big Stone Gap is a 2014 "
                "American comedy film written and directed …", "chunk_id": "E1", "quote": quote}
    (done,) = complete_quotes({"summary": "", "unknowns": [], "conclusions": [labelled]}, [])["conclusions"]
    assert done["statement"] == quote  # the label goes; the cut excerpt is its quote's sentence
    asked = "Where was the film 'Big Stone Gap' shot?"
    assert not states_its_words(asked, {"statement": done["statement"], "quote": quote, "evidence_id": "E1",
                                        "title": "Big Stone Gap (film)"})
    # a statement that is only a question stays one (the support check rejects it)
    only = complete_quotes({"summary": "", "unknowns": [], "conclusions": [{**labelled, "statement": asked}]},
                           [])["conclusions"][0]
    assert only["statement"] == asked
