"""The catalog's word lists, by purpose, in one place: which words the index drops, which
end a phrase in titles, keyphrases and edition terms, which a question is made of besides its
concepts, and which name no research concept (what's new, the reasons of related papers).
Beside them, the rules of names and addresses: how a name is stored (`clean_name`), which
characters no reader sees (`drop_invisible`) and which links are safe (`is_safe_url`). A
title as plain text is app/tex.py's `title_text`.

A base module: it imports nothing of the catalog's, so ingest, search, features and exports
can all read it. The lists differ on purpose (the index keeps "in" and "to", which phrases
need; a question drops "best" and "way"); each says what it is for.
"""

from __future__ import annotations

import re
import unicodedata

# The index's stop list (analysis.py): dropped from documents and queries alike. Short, as
# every word dropped is a phrase or a count the catalog cannot give.
STOP_WORDS = frozenset({"a", "an", "the", "of", "and", "or", "is", "are", "be", "by", "we",
                        "our", "this", "that", "these", "it", "its", "as", "at", "with"})

# Words a researcher does not start or end a phrase with: they split title runs.
TITLE_PHRASE_BREAKS = frozenset("""
a about above across after against along among an and any are as at be been being between
beyond both but by can do does for from has have how if in into is it its more most new no not
of on onto or our over than that the their this through to toward towards under unto up upon
via vs we what when where whether which while who why will with without you your using
""".split())

# Words that carry no subject by themselves: no term starts or ends with one (numbers and
# one-letter symbols neither). "in" may start a phrase: in-context, in-distribution.
TERM_EDGE_WORDS = frozenset("""
a about above across after against all along also among an and any are as at based be been
being between beyond both but by can could do does each either for from has have how however
if in into is it its may more most much new no not of on one only onto or other our over
several such than that the their them then there these they this those through thus to toward
towards two under up upon use used using via vs was we well were what when where whether which
while who why will with within without would yet you your
""".split())
TERM_LEADING_WORDS = frozenset({"in"})

# Function words and the verbs and nouns every abstract uses: they split candidates.
KEYPHRASE_BREAKS = frozenset("""
a about above across after again against all almost along also although always among an and
another any are around as at be because been before being below between both but by can could
do does doing done due during each either enable enables enabling et etc even every few for
from further given has have having here how however i if in into is it its itself just less
like may more most much must no nor not of off often on once one only or other our ours out
over own per rather same several should show shows shown since so some such than that the their
them then there these they this those through thus to too two under until up upon us use used
uses using very via was we well were what when where whether which while who whom why will with
within without would yet you your al e g i.e e.g paper papers propose proposed proposes present
presents approach approaches method methods result results work works novel new existing prior
recent recently demonstrate demonstrates experiments experimental extensive significantly
significant state art state-of-the-art outperforms achieve achieves achieved based first second
three key study studies provide provides introduce introduces different various remains remain
however furthermore moreover specifically particular particularly effective effectively improve
improves improved improving show find finds found make makes across able ability many
including include includes theoretical empirical code available often strong stronger better
now still yet
""".split())
# Words every abstract uses that mean something only inside a phrase: "diffusion models",
# "large language models", "model predictive control", never "models" alone.
KEYPHRASE_GENERIC = frozenset("""
model models framework frameworks task tasks problem problems data performance method methods
large small high low
""".split())

# What a BibTeX key skips before its first word ("the", "on"...).
CITATION_KEY_SKIPPED = frozenset(
    {"a", "an", "the", "on", "of", "in", "for", "to", "and", "we", "this", "how"})

# What makes a query a question (question.py): a word that asks...
INTERROGATIVES = frozenset(
    "how what why which when where who whom whose whether what's how's".split())
# A first word that makes a yes/no question: "does dropout help", "can transformers count".
AUXILIARIES = frozenset(
    "is are was were do does did can could should would will shall may might must has have "
    "had".split())
# What a question asks about a concept rather than a concept: "what are the limitations of
# RLHF" asks for papers on RLHF, and those that discuss its limitations rank higher. Not
# required, scored (question.is_aspect_word). Not the singular "risk" (empirical risk),
# "advantage" (advantage estimation), "challenge" (a benchmark's), "strength" (a
# regularizer's): they name things.
ASPECT_WORDS = frozenset("""risks benefits limitations challenges advantages disadvantages
    drawbacks pitfalls strengths weaknesses shortcomings benefit limitation disadvantage
    drawback pitfall weakness shortcoming""".split())
# Requests as researchers start them: "papers about", "methods for", "looking for". What a
# lead asks for ("alternatives to") stays a concept, weighed as any other; an aspect
# ("limitations of") is scored, not required.
REQUEST_LEADS = (
    ("papers",), ("paper", "on"), ("paper", "about"), ("articles",), ("work", "on"),
    ("works", "on"), ("research", "on"), ("studies", "on"), ("literature", "on"),
    ("methods", "for"), ("methods", "to"), ("approaches", "to"), ("approaches", "for"),
    ("techniques", "for"), ("techniques", "to"), ("ways", "to"), ("best", "way"),
    ("best", "methods"), ("best", "approaches"), ("find",), ("show", "me"), ("list",),
    ("looking", "for"), ("i",), ("i'm",), ("im",), ("tell", "me"), ("explain",), ("any",),
    ("recent", "work"), ("recent", "papers"), ("state", "of", "the", "art", "for"),
    ("help",), ("recent", "advances"), ("advances", "in"), ("overview",), ("compare",),
    ("difference", "between"), ("differences", "between"), ("pros", "and", "cons"),
    ("definition",), ("examples", "of"), ("applications", "of"),
    ("alternatives", "to"), ("problems", "with"), ("good",), ("seminal",), ("classic",),
    ("influential",), ("introduction", "to"), *((aspect, "of") for aspect in sorted(ASPECT_WORDS)),
)
# Phrases that ask rather than name a concept: "what is the state of the art in X" asks about
# X (most abstracts claim the state of the art). Left out of a question as its words are.
QUESTION_FUNCTION_PHRASES = (("state", "of", "the", "art"), ("state-of-the-art",),
                             ("state", "of", "art"))
# What questions and requests are made of besides their concepts. Left out of a question's
# or a description's required and scored words (but the aspects asked about, scored), never
# out of a quoted phrase.
QUESTION_FUNCTION_WORDS = INTERROGATIVES | AUXILIARIES | STOP_WORDS | ASPECT_WORDS | frozenset("""
    there here i i'm im me my mine you your yours us they them their someone anyone
    to in on for from into onto about over under via using use used between than then so if
    also just really still even only very much many more most less least some any all each
    every other others such not no nor do doing done does get gets getting make makes making
    made help helps helping let lets want need needs wanted looking look find finding show
    shows tell give list explain know known exist exists existing possible possibly there's
    best better good great way ways method methods approach approaches technique techniques
    paper papers work works research studies literature articles article recent recently
    latest current currently new today nowadays typically usually generally actually
    something anything thing things kind kinds people researchers
    both but either neither those ones yet thus hence therefore itself themselves thereby
    whereby upon
    against despite without within across through during among toward towards before after
    above below beyond like unlike versus vs per whereas while because since although though
    few little lot lots several enough various much etc e.g i.e eg ie viz
    happen happens happened cause causes caused deal deals dealing matter matters mean means
    affect affects exactly instead rather
    effective effectively important main common commonly popular easy easily nice proper
    properly useful interesting famous up down out off away back
    difference differences compare compared comparing necessary advances overview
    pros cons seminal classic influential introduction well
    been being apply applies applied applying recommend suggest choose choosing pick picking
    propose proposes proposed proposing
    """.split())
# Function words of questions that end a compound right after a concept: "path finding",
# "decision making" (question.is_function_word).
COMPOUND_ENDS = frozenset({"finding", "making"})


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Below, words that name no research concept: what "what's new" (whats_new/rising.py,
# through whats_new/concepts.py) never lists a term for, though their counts rise; the counts
# themselves (whats_new/edition_terms.py) keep every word, since a count is what a search for
# the word finds. Given as the analyzer keeps them (lemmas: "enhance" for enhanced and
# enhancing) or as papers write them ("existing", "based"), and a term is checked under both.
# The rules that go with them are in whats_new/concepts.py.


# Never part of a listed term: a phrase that holds one is prose, not a concept ("enhance
# llms", "address challenging", "significantly improve"). The verbs, adverbs and evaluative
# adjectives of academic writing, those that LLM-assisted writing made rise from 2023 on
# (delve, showcase, underscore, notably, pivotal) among them. Verbs that also name a concept
# in a phrase are not here: design, control, track, train, learn, attack, transfer, support.
FILLER_WORDS = _words("""
based beat accommodate accomplish account achieve add address adopt advance affect aid aim
allow alleviate amplify analyze argue arise assess assist assume attain attempt avoid benefit
boost bridge bring broaden build capture carry cater claim combine compare complement comprise
conduct confirm consider constitute construct contain continue contribute convey cover create
deal decrease deliver delve demonstrate depend derive describe determine develop devise differ
discover discuss display elevate eliminate emerge emphasize employ empower enable encompass
encounter encourage enhance enrich ensure entail establish evaluate examine exceed exhibit
exist expand explain explore expose extend facilitate fail find foster fulfill gain gather give
grow handle harness help hinder highlight hold hope illustrate improve include incorporate
increase indicate inform inspire integrate introduce investigate involve keep lack lead
leverage maintain make manage meet mitigate motivate need note observe obtain occur offer
outline outperform overcome pave perform pose possess present prevent produce promote propose
prove provide pursue raise reach realize receive reduce refer reflect rely remain report
require reside resolve result retain reveal rise seek seem serve shed show showcase simplify
solve span spur stem strengthen strive struggle submit succeed suffer suggest suit surpass
sustain tackle tend thrive uncover undergo underline underpin underscore unleash unlock unveil
uphold utilize validate verify warrant witness yield additionally besides consequently
conversely finally firstly furthermore hence herein however importantly indeed instead
meanwhile moreover namely nevertheless nonetheless notably overall particularly primarily
rather respectively secondly similarly specifically subsequently therefore thereby therein thus
ultimately whereas whereby often usually typically generally commonly widely largely mainly
mostly highly greatly significantly substantially considerably remarkably dramatically
drastically markedly effectively efficiently successfully accurately consistently
simultaneously directly explicitly jointly automatically easily readily quickly rapidly
recently currently previously increasingly especially even still already always never almost
nearly merely solely simply just very quite fairly relatively further abundant additional ample
appealing challenging clear compelling comprehensive considerable crucial desirable detailed
different difficult diverse dramatic easy effective emerging enormous essential excellent
existing extensive exceptional favorable great huge important impressive increasing innovative
insightful interesting intricate meaningful meticulous notable noteworthy numerous outstanding
paramount pivotal popular powerful previous prevalent profound prominent promising prevailing
recent remarkable rigorous satisfactory seamless severe significant sophisticated striking
subsequent substantial successful superior suitable surprising tremendous typical unique
unprecedented useful valuable various versatile vital widespread although during every take
permit likely able similar relevant preliminary aforementioned simpler available remains
varying vary behind near beneficial temporary repeated extra impractical costly ubiquitous
vulnerable inherent maintaining traditional conventional
""")

# Not listed alone, nor in a phrase of such words only ("state art", "proposed method",
# "large model"), but part of concepts beside another word ("novel view", "strong convexity",
# "code generation", "self supervised"): the nouns and adjectives any abstract uses, whatever
# its subject, and the first halves of hyphenated words (self-, end-, multi-, few-shot).
GENERIC_WORDS = _words("""
ability accuracy dataset benchmark network module pipeline advancement advantage algorithm
amount analysis application approach area art aspect base baseline capability case challenge
characteristic code community comparison component concept consideration contribution core data
demand development difficulty direction effect effectiveness efficiency effort element
evaluation evidence example experiment extent fact factor field finding focus form framework
function goal idea impact implementation importance improvement information insight instance
interest issue kind level limitation literature manner matter means method methodology model
notion number objective observation option order outcome overview paper paradigm part
performance perspective point possibility potential practice practitioner presence principle
problem procedure process progress property purpose quality quantity range requirement research
researcher respect role scale scenario scheme scope sense set setting situation solution source
stage standard state step strategy strength study success superiority survey system task
technique technology term thing time tool topic trend type understand usage use utility value
variety version view way weakness work learn train self end non pre post multi semi co sub anti
inter intra cross shot box middle large small high low new good better best simple strong
specific general accurate efficient robust practical precise real rich rapid fundamental
feasible possible sufficient primary current competitive ideal reliable solid novel key main
major whole wide broad single multiple common prior final initial original full entire total
aware deeper question gap efficacy integration head shift downstream horizon fine fall short
neutral conditional sequential comparable synthetic prerequisite direct utilization minimal
execution poly alternating settling
""")

# The venue's own words: calls, tracks and awards ("Sister Conferences Best Papers", "Abstract
# reprint", "Journal track"). A term of these (and generic words) only is the venue's
# boilerplate; the catalog's series slugs (neurips, uai) count as such words too.
VENUE_WORDS = _words("""
abstract accept accepted award best camera chair committee conference edition extended finalist
honorable invited journal keynote mention nominee oral paper poster preprint prize proceedings
ready reprint runner session sister special spotlight submission symposium talk track tutorial
winner workshop
""")

# The first halves of hyphenated words: not listed alone, but they make a concept of a generic
# word after them ("pre-training", "multi-task").
PREFIXES = _words("self end non pre post multi semi co sub anti inter intra cross")


# --- names and addresses ------------------------------------------------------------------------

MAX_NAME_CHARS = 200  # an author, institution or country
_STRAY = " ,;:|/*·•†‡"  # separators and footnote marks left at a name's ends by list exports
# Formatting no reader sees: bidi embeddings, overrides, isolates and marks turn the text
# after them around (a title that reverses its authors' names beside it); zero-width spaces,
# word joiners, byte-order marks and soft hyphens make one name two author pages. Joiners
# (ZWNJ, ZWJ) are kept between two letters of a script that needs them (Persian, Hindi).
_LETTER = r"[^\W\d_\x00-\x7f]"
# The lookahead lets the scan skip other characters at once: trying each alternative at each
# character made this a sixth of normalizing an abstract.
_INVISIBLE = re.compile("(?=[\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064"
                        "\u2066-\u2069\ufeff])(?:"
                        "[\u00ad\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064"
                        f"\u2066-\u2069\ufeff]|(?<!{_LETTER})[\u200c\u200d]"
                        f"|[\u200c\u200d](?!{_LETTER}))")


def drop_invisible(text: str) -> str:
    """The text without formatting characters no reader sees (bidi controls, zero-width
    spaces, soft hyphens, ...)."""
    return text if text.isascii() else _INVISIBLE.sub("", text)  # all of them are non-ASCII


# The full-width forms of ASCII and the ideographic space, which a CJK input method left on
# types: read as ASCII, "ｙｅａｒ：2026" is the filter year:2026 (it had found nothing).
_HALF_WIDTH = {**{code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}, 0x3000: 0x20}


def half_width(text: str) -> str:
    """The text with full-width ASCII as ASCII."""
    return text if text.isascii() else text.translate(_HALF_WIDTH)


def in_another_script(text: str) -> bool:
    """Whether the text has letters and none of them is Latin or Greek (the scripts of the
    catalog's English abstracts and of their math), read as compatibility forms: fullwidth
    and mathematical letters are Latin."""
    letters = [char for char in unicodedata.normalize("NFKC", text) if char.isalpha()]
    return bool(letters) and not any(
        char.isascii() or unicodedata.name(char, "").startswith(("LATIN", "GREEK"))
        for char in letters)


def clean_name(text: str, limit: int = MAX_NAME_CHARS) -> str:
    """A name as stored: NFC, without invisible formatting, single spaces, no stray
    separators at its ends, cut to `limit`."""
    name = " ".join(unicodedata.normalize("NFC", drop_invisible(text)).split()).strip(_STRAY)
    return name[:limit].rstrip(_STRAY)


def is_safe_url(url: str) -> bool:
    return bool(re.match(r"https?://[^\s/]", url, re.I))
