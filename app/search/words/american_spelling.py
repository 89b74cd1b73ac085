"""British → American spelling, word by word, so that "generalisation" and "generalization"
are one term: whole words that no rule covers, and the -ise/-yse verbs and their forms,
except words whose -is- is not the suffix ("advise", "supervised", "pairwise")."""

from __future__ import annotations

import re

# Whole-word British → American spellings that no suffix rule covers.
_BRITISH_WORDS = {
    "behaviour": "behavior", "behaviours": "behaviors", "behavioural": "behavioral",
    "colour": "color", "colours": "colors", "favour": "favor", "favourable": "favorable",
    "neighbour": "neighbor", "neighbours": "neighbors", "neighbourhood": "neighborhood",
    "neighbouring": "neighboring", "labour": "labor", "harbour": "harbor", "honour": "honor",
    "rumour": "rumor", "vapour": "vapor", "humour": "humor", "flavour": "flavor",
    "centre": "center", "centres": "centers", "centred": "centered", "metre": "meter",
    "fibre": "fiber", "litre": "liter", "theatre": "theater",
    "modelling": "modeling", "modelled": "modeled", "modeller": "modeler",
    "labelling": "labeling", "labelled": "labeled", "labeller": "labeler",
    "travelling": "traveling", "travelled": "traveled", "cancelled": "canceled",
    "signalling": "signaling", "signalled": "signaled", "tunnelling": "tunneling",
    "channelling": "channeling", "levelling": "leveling", "fuelled": "fueled",
    "catalogue": "catalog", "catalogues": "catalogs", "dialogue": "dialog",
    "dialogues": "dialogs", "analogue": "analog", "programme": "program",
    "programmes": "programs", "defence": "defense", "licence": "license", "offence": "offense",
    "grey": "gray", "aluminium": "aluminum", "judgement": "judgment", "ageing": "aging",
    "artefact": "artifact", "artefacts": "artifacts", "sceptical": "skeptical",
    "manoeuvre": "maneuver", "oestrogen": "estrogen", "paediatric": "pediatric",
    "anaesthesia": "anesthesia", "foetal": "fetal", "tumour": "tumor", "tumours": "tumors",
}
# -ise/-yse verbs: words whose -is- is not the British -ize suffix keep their spelling.
_ISE = re.compile(
    r"^(?P<stem>[a-z]{3,}?)(?P<s>[iy])s(?P<suffix>e|es|ed|ing|er|ers|ation|ations|able)$"
)
_NATIVE_ISE = frozenset({
    "advis", "apprais", "aris", "chastis", "compris", "compromis", "concis", "cruis", "demis",
    "despis", "devis", "disguis", "enterpris", "excis", "exercis", "expertis", "franchis",
    "improvis", "incis", "merchandis", "nois", "pois", "prais", "precis", "premis", "promis",
    "rais", "repris", "revis", "supervis", "surpris", "televis", "treatis", "advertis", "bruis",
    "circumcis", "paradis", "unsupervis", "unrevis", "apris",
})


def americanize(word: str) -> str:
    if word in _BRITISH_WORDS:
        return _BRITISH_WORDS[word]
    match = _ISE.match(word)
    if match is None:
        return word
    stem = match["stem"] + match["s"]
    if (
        f"{stem}s" in _NATIVE_ISE
        or stem.endswith("wi")  # pairwise, elementwise
        or (match["s"] == "y" and not stem.endswith("ly"))  # only analyse, paralyse, catalyse
    ):
        return word
    return f"{stem}z{match['suffix']}"


def changed_starts(length: int) -> set[tuple[str, str]]:
    """(a British word's first `length` letters, its American spelling's) where they differ
    ("oestrogen" → ("oe", "es")); the -ise rule keeps at least a word's first four letters."""
    return {(british[:length], american[:length]) for british, american in _BRITISH_WORDS.items()
            if british[:length] != american[:length]}
