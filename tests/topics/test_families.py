import pytest
from sqlmodel import col, select

from app.enrich import retopic_all
from app.models import Paper
from app.search.words.analysis import analyze
from app.topics import TopicScorer
from app.topics.families import family_model
from app.topics.softmax import features
from tests.conftest import Catalog, write_list

OBVIOUS = {
    "robotics": ("Learning dexterous grasping for a robot arm",
                 "We present a method for a robot arm to grasp novel objects from a cluttered "
                 "bin. A gripper camera and tactile sensors guide the grasp, and experiments "
                 "on a real manipulator show high grasp success."),
    "vision": ("Real-time semantic segmentation of street scenes",
               "We propose a lightweight convolutional network for semantic segmentation of "
               "urban street images. On Cityscapes it reaches higher mIoU than prior "
               "real-time models at 60 frames per second."),
    "language": ("Cross-lingual named entity recognition",
                 "We study named entity recognition for low-resource languages. Annotated "
                 "corpora are scarce, so we transfer from English with multilingual "
                 "embeddings and improve F1 on several languages."),
    "learning theory": ("Sample complexity of agnostic PAC learning",
                        "We prove tight upper and lower bounds on the sample complexity of "
                        "agnostic PAC learning for hypothesis classes of finite VC dimension."),
}
# Depth from a camera: an application to vision by its words, a robotics paper at ICRA.
DEPTH = ("We estimate the depth of each pixel from a single camera image with a convolutional "
         "network, and fuse the estimates over time into a consistent map.")


@pytest.mark.parametrize("family", sorted(OBVIOUS))
def test_an_obvious_abstract_reads_like_its_kind_of_venue(family: str):
    model = family_model()
    headline, text = OBVIOUS[family]
    p = model.probabilities(features(analyze(headline), analyze(text)))
    assert model.families[int(p.argmax())].name == family
    assert p.max() > model.threshold


def test_a_paper_of_a_robotics_series_leans_to_robotics():
    scorer = TopicScorer()
    assert scorer.assign(DEPTH, DEPTH)[0][0] == "applications"
    assert scorer.assign(DEPTH, DEPTH, "icra")[0] == ("robotics", family_model().boost)
    assert [slug for slug, _ in scorer.assign(DEPTH, DEPTH, "icra")] == ["robotics",
                                                                          "applications"]


def test_a_general_series_leaves_the_lean_to_the_text():
    scorer = TopicScorer()
    assert scorer.scores(DEPTH, DEPTH, "neurips") == scorer.scores(DEPTH, DEPTH)
    assert scorer.scores(DEPTH, DEPTH, "aaai") == scorer.scores(DEPTH, DEPTH)


def test_ingest_and_retopic_score_a_paper_with_its_series(fresh: Catalog, tmp_path):
    fresh.ingest(write_list(tmp_path / "icra.txt", "ICRA 2030 Papers", DEPTH),
                 write_list(tmp_path / "iclr.txt", "ICLR 2030 Papers", DEPTH))
    for recompute in (False, True):
        with fresh.session() as session:
            if recompute:
                retopic_all(session)
            topics = dict(session.exec(select(Paper.edition_slug, Paper.topic).where(
                col(Paper.edition_slug).in_(["icra-2030", "iclr-2030"]))).all())
        assert topics == {"icra-2030": "robotics", "iclr-2030": "applications"}
