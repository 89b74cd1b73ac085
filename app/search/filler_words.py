"""Words that name no research concept: what "what's new" (app/whats_new.py, through
app/concepts.py) never lists a term for, though their counts rise. The counts themselves
(edition_terms.py) keep every word, since a count is what a search for the word finds.

Kept here, beside edition terms' FUNCTION_WORDS, until the catalog has one shared module of
function words; the rules that go with them (a word that LemmInflect knows only as a verb or
an adverb, an acronym without a meaning) are in app/concepts.py.

Words are given as the analyzer keeps them (lemmas: "enhance" for enhanced and enhancing) or as
papers write them ("existing", "challenging", "based": their lemmas exist and concepts use
them), and a term is checked under both.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


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
vulnerable inherent maintaining
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
