"""The words of the behavioural suite (English only): four domains' aspects, each
with its category and the opinion words that fit it, and the words shared by
every domain.

Written for the suite from general English, not from any data set: the suite's
sentences must never be trained on (a test checks that none is in the data the
project reads). Rare words stand beside frequent ones, so that a model is also
asked about opinions its training data seldom had.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Aspect",
    "DOMAINS",
    "POSITIVE",
    "NEGATIVE",
    "NEUTRAL_CLAUSES",
    "VERDICTS",
]


@dataclass(frozen=True)
class Aspect:
    """An aspect term of a domain: ``term`` as written, its ``category``, whether
    it takes a plural verb, and the opinion adjectives that fit it alone (beside
    the domain-wide :data:`POSITIVE` and :data:`NEGATIVE`)."""

    term: str
    category: str
    plural: bool = False
    positive: tuple[str, ...] = ()
    negative: tuple[str, ...] = ()


# Opinion adjectives any aspect can take.
POSITIVE = (
    "great",
    "excellent",
    "superb",
    "fantastic",
    "wonderful",
    "impressive",
    "outstanding",
    "terrific",
    "brilliant",
    "stellar",
    "exceptional",
    "splendid",
    "first-rate",
    "marvelous",
    "top-notch",
)
NEGATIVE = (
    "terrible",
    "awful",
    "dreadful",
    "disappointing",
    "poor",
    "horrible",
    "mediocre",
    "lousy",
    "atrocious",
    "abysmal",
    "subpar",
    "dismal",
    "woeful",
    "lackluster",
    "shoddy",
)

_FOOD = Aspect(
    "",
    "food",
    positive=("delicious", "tasty", "flavorful", "scrumptious", "sublime"),
    negative=("bland", "stale", "soggy", "overcooked", "tasteless", "greasy"),
)
_STAFF = Aspect(
    "",
    "service",
    positive=("friendly", "attentive", "helpful", "courteous", "gracious"),
    negative=("rude", "slow", "inattentive", "surly", "dismissive", "unhelpful"),
)
_PRICE = Aspect(
    "",
    "price",
    plural=True,
    positive=("reasonable", "fair", "affordable"),
    negative=("outrageous", "steep", "exorbitant"),
)
_PLACE = Aspect(
    "",
    "ambience",
    positive=("cozy", "charming", "inviting", "relaxing"),
    negative=("cramped", "gloomy", "noisy", "dingy"),
)


def _like(kind: Aspect, term: str, category: str | None = None, plural=None):
    """An aspect ``term`` with the opinion words of ``kind``."""
    return Aspect(
        term,
        category or kind.category,
        kind.plural if plural is None else plural,
        kind.positive,
        kind.negative,
    )


_RESTAURANTS = (
    *(
        _like(_FOOD, t, plural=t.endswith("s"))  # "dumplings were"
        for t in (
            "pasta",
            "sushi",
            "steak",
            "risotto",
            "dumplings",
            "tiramisu",
            "curry",
            "lasagna",
            "ceviche",
            "brisket",
        )
    ),
    *(
        _like(_STAFF, t)
        for t in ("waiter", "waitress", "staff", "bartender", "hostess", "sommelier")
    ),
    _like(_PLACE, "decor"),
    _like(_PLACE, "atmosphere"),
    _like(_PLACE, "patio"),
    _like(_PRICE, "prices"),
    _like(_PRICE, "wine list", "drinks", plural=False),
)
_DEVICE = Aspect(
    "",
    "hardware",
    positive=("sturdy", "responsive", "sleek", "solid"),
    negative=("flimsy", "unresponsive", "clunky", "faulty"),
)
_POWER = Aspect(
    "",
    "battery",
    positive=("long-lasting", "dependable"),
    negative=("short-lived", "unreliable"),
)
_SCREEN = Aspect(
    "",
    "display",
    positive=("crisp", "vivid", "bright", "sharp"),
    negative=("dim", "grainy", "washed-out", "blurry"),
)
_SPEED = Aspect(
    "",
    "performance",
    positive=("fast", "snappy", "smooth", "speedy"),
    negative=("sluggish", "laggy", "slow", "choppy"),
)
_SOFT = Aspect(
    "",
    "software",
    positive=("intuitive", "stable", "polished"),
    negative=("buggy", "bloated", "confusing", "unstable"),
)
_LAPTOPS = (
    _like(_POWER, "battery"),
    _like(_POWER, "battery life"),
    _like(_SCREEN, "screen"),
    _like(_SCREEN, "display"),
    _like(_DEVICE, "keyboard"),
    _like(_DEVICE, "trackpad"),
    _like(_DEVICE, "hinge"),
    _like(_DEVICE, "speakers", plural=True),
    _like(_SPEED, "processor"),
    _like(_SPEED, "boot time"),
    _like(_SOFT, "operating system"),
    _like(_SOFT, "drivers", plural=True),
    _like(_PRICE, "price", plural=False),
    _like(_STAFF, "tech support", "support"),
)
_ROOM = Aspect(
    "",
    "rooms",
    positive=("spacious", "spotless", "comfortable", "quiet"),
    negative=("cramped", "dirty", "musty", "shabby"),
)
_HOTELS = (
    _like(_ROOM, "room"),
    _like(_ROOM, "bed"),
    _like(_ROOM, "bathroom"),
    _like(_ROOM, "shower"),
    _like(_ROOM, "suite"),
    _like(_STAFF, "receptionist"),
    _like(_STAFF, "concierge"),
    _like(_STAFF, "front desk"),
    _like(_STAFF, "housekeeping"),
    _like(_FOOD, "breakfast"),
    _like(_FOOD, "buffet"),
    _like(_PLACE, "lobby", "facilities"),
    _like(_PLACE, "pool", "facilities"),
    _like(_PRICE, "rates", plural=True),
    Aspect(
        "location",
        "location",
        positive=("convenient", "central", "ideal"),
        negative=("inconvenient", "remote", "sketchy"),
    ),
)
_CAMERA = Aspect(
    "",
    "camera",
    positive=("crisp", "sharp", "detailed"),
    negative=("grainy", "blurry", "noisy"),
)
_PHONES = (
    _like(_POWER, "battery"),
    _like(_POWER, "charger"),
    _like(_CAMERA, "camera"),
    _like(_CAMERA, "selfie camera"),
    _like(_SCREEN, "screen"),
    _like(_SCREEN, "touchscreen"),
    _like(_SPEED, "phone", "performance"),
    _like(_SPEED, "face unlock", "software"),
    _like(_SOFT, "apps", "software", plural=True),
    _like(_SOFT, "interface", "software"),
    _like(_DEVICE, "case", "design"),
    _like(_DEVICE, "buttons", "design", plural=True),
    _like(_DEVICE, "speaker", "hardware"),
    _like(_PRICE, "price", plural=False),
    Aspect(
        "signal",
        "connectivity",
        positive=("strong", "reliable", "steady"),
        negative=("weak", "spotty", "patchy"),
    ),
)

#: Domain -> its aspects.
DOMAINS: dict[str, tuple[Aspect, ...]] = {
    "restaurants": _RESTAURANTS,
    "laptops": _LAPTOPS,
    "hotels": _HOTELS,
    "phones": _PHONES,
}

#: Sentences about no aspect, by domain (INV: adding one changes no label).
NEUTRAL_CLAUSES: dict[str, tuple[str, ...]] = {
    "restaurants": (
        "We went there on a Tuesday evening.",
        "My sister picked the place.",
        "We had a table for four.",
        "It was our second visit this year.",
    ),
    "laptops": (
        "I bought it last spring.",
        "I use it mostly for work.",
        "It came in a plain box.",
        "My old one was six years old.",
    ),
    "hotels": (
        "We stayed three nights in May.",
        "We booked it through a friend.",
        "It was our first trip to the city.",
        "We arrived late on a Friday.",
    ),
    "phones": (
        "I switched from another brand.",
        "I have had it for two months.",
        "It was a birthday present.",
        "I mostly use it for messages.",
    ),
}

#: Sentences with an opinion about no aspect in particular, any domain (a
#: detector must not find an aspect in them; a general category may).
VERDICTS: tuple[tuple[str, str], ...] = (
    ("Stay away.", "negative"),
    ("Never again.", "negative"),
    ("I would not recommend it to anyone.", "negative"),
    ("What a letdown.", "negative"),
    ("Avoid at all costs.", "negative"),
    ("Highly recommended.", "positive"),
    ("We will definitely be back.", "positive"),
    ("Five stars from me.", "positive"),
    ("I could not be happier.", "positive"),
    ("An absolute gem.", "positive"),
)
