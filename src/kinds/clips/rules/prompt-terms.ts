/**
 * Term lists for the clip prompt rule (see prompt-rule.ts for how they are matched).
 *
 * Pattern syntax, kept tiny on purpose so every entry stays readable and reviewable:
 * lowercase letters, a single space between words, `(a|b)` groups and `?`. Nothing else.
 * Each letter is compiled to "one or more of that letter", so "nude" also matches "nuuude"
 * while "ass" still needs two s's. Patterns are matched against the normalised prompt, which
 * has no accents, confusables, leetspeak or punctuation left.
 *
 * The lists are English. Words chosen deliberately NOT to be terms (too many innocent uses):
 * breast (chicken breast, breaststroke), cock (rooster, peacock), dick (Dick Van Dyke, Moby
 * Dick), ass (donkey), booty (pirates), kinky (hair), strip (comic strip), bottomless (pit,
 * brunch), hot, steamy, naughty, kiss, swimsuit, girl and boy on their own (adult usage).
 */

export interface TermList {
  /** Single words, with suffix groups. Matched as whole tokens and inside glued compounds. */
  words: readonly string[];
  /** Multi-word phrases, matched at word boundaries on the normalised text. */
  phrases: readonly string[];
  /** Stems no innocent English word contains, matched anywhere, even inside other words. */
  anywhere: readonly string[];
}

/** Sexual acts, pornography and explicit sexual language → refusal code `sexual`. */
export const SEXUAL: TermList = {
  words: [
    "sex(es|ed)?",
    "sexual(ly|ity|ities|ised|ized|ise|ize)?",
    "sext(s|ing|ed)?",
    "seggs", // algospeak
    "secks",
    "intercourse",
    "erotic(a|ally|ism)?",
    "orgy",
    "orgies",
    "horny",
    "lewd(ness)?",
    "smut(ty)?",
    "pron",
    "xxx",
    "ecchi",
    "ahegao",
    "rape(s|d)?",
    "raping",
    "rapist(s)?",
    "molest(s|ed|er|ers|ing|ation)?",
    "incest(uous)?",
    "bestiality",
    "zoophilia",
    "cum(s|shot|shots)?",
    "ejaculat(e|es|ed|ing|ion)",
    "wank(s|er|ers|ing)?",
    "bdsm",
    "bondage",
    "fetish(es|ist|ists)?",
    "slut(s|ty)?",
    "whore(s)?",
    "milf(s)?",
    "camgirl(s)?",
    "stripper(s)?",
    "striptease",
    "threesome(s)?",
    "sodomy",
    "sodomi(s|z)e(d)?",
    "anal",
    "cunt(s)?",
    "pussy",
    "nympho(s|maniac|maniacs)?",
    "doggystyle",
  ],
  phrases: [
    "(make|makes|made|making) love",
    "(jerk|jerks|jerking|jack|jacks|jacking) off",
    "dick pic(s)?",
    "(suck|sucks|sucking|stroke|strokes|stroking) (his |a |my )?(dick|cock)",
    "doggy style",
    "missionary position",
    "adult (film|films|movie|movies|video|videos|content|entertainment)",
    "x rated",
    "(spread|spreads|spreading) (her|his|their) legs",
    "lap (dance|dances|dancing)",
    "strip (club|clubs|tease|teases)",
    "booty call",
    "wet dream(s)?",
  ],
  anywhere: [
    "porn",
    "hentai",
    "nsfw",
    "fuck",
    "orgasm",
    "masturbat",
    "blowjob",
    "handjob",
    "footjob",
    "rimjob",
    "gangbang",
    "bukkake",
    "creampie",
    "dildo",
    "buttplug",
    "fleshlight",
    "fellatio",
    "cunnilingus",
    "deepthroat",
  ],
};

/** Nakedness and exposed intimate body parts → refusal code `nudity`. */
export const NUDITY: TermList = {
  words: [
    "nud(e|es|ist|ists|ism|ity)",
    "nudie(s)?",
    "nood(e|es|s|ies)",
    "naked(ness)?",
    // Spellings of naked as it is said or typed short.
    "nekkid",
    "nakd",
    "nakid",
    "neked",
    "topless",
    "unclothed",
    "undress(es|ed|ing)?",
    "disrob(e|es|ed|ing)",
    "nipple(s)?",
    "areola(s|e)?",
    "genital(s|ia)?",
    "penis(es)?",
    "vagina(s|l)?",
    "vulva(s)?",
    "labia",
    "scrotum",
    "testicle(s)?",
    "clit(s|oris)?",
    "boob(s|ies)?",
    "tits",
    "titty",
    "titties",
    "skinnydip(ping)?",
  ],
  phrases: [
    "in the nude",
    "birthday suit(s)?",
    "skinny dip(s|ping)?",
    "no (clothes|clothing)",
    "without (any )?(clothes|clothing)",
    "not wearing (any )?(clothes|clothing|underwear|anything)",
    "wearing nothing",
    "with nothing on",
    "(bare|exposed|naked|her) (breasts|buttocks|genitals|crotch)",
    "bare breasted",
    "bare (bottom|bottomed|butt|bum)",
    "pubic hair",
    "private parts",
    "(take|takes|taking|took|remove|removes|removing|removed|strip|strips|stripping|stripped|peel|peels|peeling) (off )?(all )?(of )?(her |his |their |my |your )?(clothes|clothing|underwear|bra|panties|knickers|bikini)",
  ],
  anywhere: [],
};

/**
 * Suggestive but not explicit. Allowed for adults (the content rule forbids suggestive content
 * only when a minor is involved), so these matter only together with a minor term.
 * "bikini" is here deliberately: a minor in a bikini is a known route to sexualised imagery,
 * while "swimsuit" stays neutral so innocent family-beach prompts still have a wording.
 */
export const SUGGESTIVE: TermList = {
  words: [
    "sexy",
    "sexier",
    "sexiest",
    "sexily",
    "seductive(ly)?",
    "seduc(e|es|ed|ing|tion|tress)",
    "lingerie",
    "negligee(s)?",
    "nightie(s)?",
    "babydoll(s)?",
    "provocative(ly)?",
    "sensual(ly|ity)?",
    "sensuous(ly)?",
    "sultry",
    "lust(s|y|ful|ing)?",
    "flirt(s|y|ing|ed|atious|atiously)?",
    "pinup(s)?",
    "risque",
    "raunchy",
    "busty",
    "voluptuous",
    "thicc",
    "cleavage",
    "skimpy",
    "thong(s)?",
    "gstring(s)?",
    "panties",
    "knickers",
    "undies",
    "underwear",
    "bra(s)?",
    "bralette(s)?",
    "bikini(s)?",
    "twerk(s|ing|ed)?",
    "suggestive(ly)?",
    "alluring(ly)?",
    "boudoir",
    "titillat(e|es|ed|ing|ion)",
    "playboy",
  ],
  phrases: [
    "bedroom eyes",
    "come hither",
    "thirst trap(s)?",
    "wet t shirt(s)?",
    "g string(s)?",
    "see through (top|tops|dress|dresses|shirt|shirts|blouse|lingerie|nightgown)",
  ],
  anywhere: [],
};

/** Children and teenagers. Refused (as `minor_safety`) only together with any term above. */
export const MINOR: TermList = {
  words: [
    "child(ren|s)?",
    "grandchild(ren)?",
    "stepchild(ren)?",
    "kid(s|do|dos|die|dies)?",
    "teen(s|age|aged|ager|agers)?",
    "preteen(s)?",
    "tween(s)?",
    "minor(s)?",
    "underage(d)?",
    "schoolgirl(s)?",
    "schoolboy(s)?",
    "schoolkid(s)?",
    "schoolchild(ren)?",
    "loli(s|ta|tas)?",
    "shota(s)?",
    "baby",
    "babies",
    "toddler(s)?",
    "infant(s)?",
    "newborn(s)?",
    "juvenile(s)?",
    "adolescent(s)?",
    "pubescent",
    "prepubescent",
    "youngster(s)?",
  ],
  phrases: [
    "(little|young|small|tiny) (girl|girls|boy|boys|one|ones)",
    "school (girl|girls|boy|boys|kid|kids|child|children|uniform|uniforms)",
    "(high|middle|primary|elementary|grade|junior) school(er|ers)",
    "(high|middle|primary|elementary|grade|junior) school (student|students|pupil|pupils|girl|girls|boy|boys|kid|kids)",
    "under age",
    "under eighteen",
  ],
  anywhere: [],
};

/** Terms that on their own mean sexual content involving minors → always `minor_safety`. */
export const MINOR_SEXUAL: TermList = {
  words: ["pedo(s)?", "paedo(s)?", "pedobear", "csam", "nymphet(s)?"],
  phrases: ["barely (legal|eighteen)"],
  anywhere: ["pedophil", "paedophil", "jailbait", "lolicon", "shotacon"],
};

/**
 * Words that may be glued to a term in one token ("hotnudegirls", "sextape", "sexyteen").
 * A glued token counts only when it splits completely into companions and terms, so "Essex",
 * "sextant" and "Middlesex" do not. No articles, pronouns or single letters ("the"+"rapist"
 * would otherwise read "therapist"), and no "man"/"men" ("kid"+"man" would read "Kidman").
 */
export const COMPANIONS: readonly string[] = [
  "hot",
  "live",
  "free",
  "real",
  "amateur",
  "big",
  "huge",
  "cam(s)?",
  "web",
  "chat",
  "girl(s)?",
  "boy(s)?",
  "guy(s)?",
  "gal(s)?",
  "wom(a|e)n",
  "lady",
  "ladies",
  "wife",
  "wives",
  "pic(s)?",
  "pix",
  "photo(s)?",
  "video(s)?",
  "vid(s)?",
  "clip(s)?",
  "tape(s)?",
  "movie(s)?",
  "film(s)?",
  "show(s)?",
  "star(s)?",
  "scene(s)?",
  "selfie(s)?",
  "party",
  "toy(s)?",
  "doll(s)?",
];

/**
 * Innocent phrases blanked out before matching, each as tight as possible: only the exact
 * neighbouring word makes the term innocent, so "nude shoes" passes but "nude woman" does not.
 */
export const INNOCENT_PHRASES: readonly string[] = [
  // "Nude" as a colour word in fashion and make-up.
  "nude (shoe|shoes|heel|heels|pump|pumps|sandal|sandals|boot|boots|flats|lipstick|lipsticks|lip gloss|gloss|nail polish|nail|nails|manicure|tone|tones|colour|colours|color|colors|coloured|colored|shade|shades|palette|palettes|eyeshadow|makeup|beige|blush|hue|hues)",
  "naked (eye|eyes|flame|flames|fire|light|lights|bulb|bulbs|lightbulb|lightbulbs|truth|mole rat|mole rats|molerat|molerats|ape|cake|cakes|gun|wire|wires|singularity)",
  // Birds.
  "(blue|great|coal|marsh|willow|crested|long tailed|bearded|penduline) tit(s)?",
  "pussy (cat|cats|willow|willows)",
  "cum laude",
  "horny toad(s)?",
  "super bowl xxx",
  "(both|opposite|same|either) sex(es)?",
  "sex pistols",
  // Topics, not content: a harassment-awareness poster or a health clinic.
  "sexual (harassment|health|orientation|orientations)",
  // Music keys, sports leagues and everyday "minor" (but never "a minor" on its own).
  "minor (key|keys|chord|chords|scale|scales|third|thirds|league|leagues|leaguer|leaguers|injury|injuries|detail|details|change|changes|role|roles|planet|planets|road|roads|character|characters|issue|issues|miracle)",
  "(sharp|flat|b|c|d|e|f|g) minor",
  "baby (blue|pink|grand|grands|spinach|carrot|carrots|corn)",
  "kid (glove|gloves|leather)",
];
