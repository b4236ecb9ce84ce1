"""Sub-questions that belong to the topic: twins dropped, invented names dropped."""

from __future__ import annotations

from ditto_nb.patterns.deep_research.sub_questions import foreign_names, topic_sub_questions


def test_a_sub_question_repeating_another_in_other_words_is_dropped() -> None:
    topic = "Who is the main actor in American Beauty and which award did he win for it?"
    subs = ["Who is the main actor in American Beauty?", "What is the main actor in American Beauty?",
            "Which award did the main actor win?"]
    assert topic_sub_questions(topic, subs) == [subs[0], subs[2]]


def test_a_sub_question_naming_what_the_topic_does_not_is_dropped() -> None:
    topic = "When did the SARS outbreak begin and how many people did it kill?"
    subs = ["What is the name of the virus that caused the 2019-nCoV outbreak?",
            "When did the SARS outbreak begin?", "Where was Carlo Urbani born?"]
    assert topic_sub_questions(topic, subs) == ["When did the SARS outbreak begin?"]
    assert foreign_names(topic, subs[2]) == ["Carlo Urbani"]


def test_a_capitalized_first_word_is_not_a_name_and_nothing_kept_leaves_the_topic() -> None:
    topic = "The Zarnow Bridge: who designed it?"
    assert foreign_names(topic, "Describe the Zarnow Bridge") == []
    assert topic_sub_questions(topic, ["Who is Ilse Marrek?"]) == [topic]


def test_a_twin_asking_for_the_same_place_with_another_verb_form_is_dropped() -> None:
    topic = "The director of the film 'Zarnow Gap' is based in what city?"
    subs = ["Where was the film 'Zarnow Gap' shot?", "Which city did the film 'Zarnow Gap' shoot in?",
            "When was the film 'Zarnow Gap' shot?"]
    # "Where" and "Which city" ask for a place, "shot" is "shoot"; "When" asks for a time
    assert topic_sub_questions(topic, subs) == [subs[0], subs[2]]
