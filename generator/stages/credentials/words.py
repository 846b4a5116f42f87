"""Secret words in the languages developers write in: password, passphrase, secret and private key, credentials,
token, PIN, as names (`contraseña=`, `passwort:`, `密码：`, `пароль=`, `mot_de_passe`) and in prose.

Sources, so that each word can be checked:

- KeePassXC's translations, `share/translations/keepassxc_<language>.ts` (github.com/keepassxreboot/keepassxc,
  commit 95bae8377c88f46fda565e09fee25d7ba684fe9e): the translations of the messages "Password", "Passphrase",
  "Private key", "Secret Key:" and of the messages naming credentials (ar, cs, de, es, fr, he, id, it, ja, ko, nl,
  pl, pt_BR, ru, sv, tr, uk, zh_CN, zh_TW);
- Bitwarden's browser extension, `apps/browser/src/_locales/<language>/messages.json` (github.com/bitwarden/clients):
  `masterPass`, `copyPassword`, `copyPassphrase`, `copyPrivateKey`, `password`, `passphrase` for Vietnamese, Hindi
  and Persian, which KeePassXC does not have;
- the inflected forms (Slavic cases, Turkish possessives, plurals) are those of the words' declension tables in
  Wiktionary (en.wiktionary.org, the entries `пароль`, `hasło`, `heslo`, `şifre`, `parola`, `Passwort`,
  `lösenord`, `wachtwoord`, `contraseña`, `senha`).

Each word is kept in lower case; the scan over text (`foreign_occurrences`) looks for its lower, capitalised and
upper-case spellings (the prefilter's caseless matching is ASCII's alone).
"""

from __future__ import annotations

import re
import unicodedata


SECRET_WORDS_BY_LANGUAGE: dict[str, tuple[str, ...]] = {
    "es": ("contraseña", "contraseñas", "contrasena", "frase de contraseña", "clave secreta", "clave privada",
           "clave de acceso", "credenciales"),
    "pt": ("senha", "senhas", "palavra-passe", "chave secreta", "chave privada", "credenciais"),
    "fr": ("mot de passe", "mots de passe", "mot_de_passe", "motdepasse", "phrase de passe", "clé secrète",
           "clé privée", "identifiants", "jeton"),
    "de": ("passwort", "passworts", "passwörter", "kennwort", "kennworts", "kennwörter", "geheimer schlüssel",
           "privater schlüssel", "zugangsdaten", "anmeldedaten"),
    "it": ("parola d'ordine", "chiave segreta", "chiave privata", "credenziali", "frase segreta"),
    "nl": ("wachtwoord", "wachtwoorden", "wachtwoordzin", "geheime sleutel", "persoonlijke sleutel", "inloggegevens"),
    "pl": ("hasło", "hasła", "hasłu", "hasłem", "haśle", "haseł", "hasłami", "haslo", "klucz prywatny",
           "klucz sekretny", "poświadczenia"),
    "cs": ("heslo", "hesla", "heslu", "heslem", "hesel", "tajný klíč", "soukromý klíč", "přihlašovací údaje",
           "heslová fráze"),
    "ru": ("пароль", "пароля", "паролю", "паролем", "пароле", "пароли", "паролей", "паролям", "паролями",
           "секретный ключ", "закрытый ключ", "учётные данные", "учетные данные", "токен", "токена", "токены"),
    "uk": ("паролі", "паролів", "таємний ключ", "приватний ключ", "облікові дані"),
    "tr": ("parola", "parolası", "parolanız", "parolayı", "şifre", "şifresi", "şifreniz", "şifreyi", "sifre",
           "gizli anahtar", "kimlik bilgileri"),
    "sv": ("lösenord", "lösenordet", "lösenorden", "lösenordsfras", "losenord", "hemlig nyckel", "privat nyckel"),
    "id": ("kata sandi", "sandi", "kunci rahasia", "kunci privat", "frasa sandi"),
    "vi": ("mật khẩu", "cụm mật khẩu", "khóa riêng tư", "mat khau"),
    "hi": ("पासवर्ड", "पासफ़्रेज़"),
    "ar": ("كلمة المرور", "كلمه السر", "كلمة السر", "عبارة سر", "المفتاح السري"),
    "fa": ("کلمه عبور", "رمز عبور", "گذرواژه", "عبارت عبور", "کلید خصوصی"),
    "he": ("ססמה", "סיסמה", "סיסמא", "מפתח סודי", "מפתח פרטי"),
    "zh-Hans": ("密码", "口令", "密钥", "私钥", "凭据", "令牌"),
    "zh-Hant": ("密碼", "私密金鑰", "密碼短語", "金鑰"),
    "ja": ("パスワード", "パスフレーズ", "秘密鍵", "資格情報", "トークン", "暗証番号"),
    "ko": ("암호", "비밀번호", "비밀 키", "암구호", "토큰"),
}
"""The words, by language (BCP 47 tags); English's are `names.SECRET_WORDS`."""

FOREIGN_WORDS = frozenset(word for words in SECRET_WORDS_BY_LANGUAGE.values() for word in words)


def _forms(word: str) -> set[str]:
    """A word as names spell it too: a phrase's words joined by `_` (`mot_de_passe`), and the lower case of its
    upper case (`PAROLASI` lowers to `parolasi`, not to `parolası`)."""
    forms = {word, word.upper().lower()}
    return forms | {form.replace(" ", "_") for form in forms}


_FORMS = frozenset(form for word in FOREIGN_WORDS for form in _forms(word))
ASCII_WORDS = tuple(sorted(form for form in _FORMS if form.isascii()))
"""The words the prefilter's ASCII scan finds (its caseless literals)."""
OTHER_WORDS = tuple(sorted(form for form in _FORMS if not form.isascii()))
"""The words with a letter that is not ASCII: found by a scan of their own (`foreign_occurrences`)."""
SPACED_WORDS = tuple(sorted((word for word in FOREIGN_WORDS if " " in word), key=len, reverse=True))
"""Phrases of words (`mot de passe`, `clave secreta`): a name that is one runs past its blanks."""
_PHRASES_BY_FIRST_WORD: dict[str, list[str]] = {}
for _phrase in SPACED_WORDS:
    _PHRASES_BY_FIRST_WORD.setdefault(_phrase.split(" ", 1)[0], []).append(_phrase)
_UNSPACED_SCRIPTS = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
"""Scripts written without spaces between words (Chinese, Japanese, Korean): a word is part of a longer name."""


def _joined(word: str) -> str:
    return re.sub(r"[\s\-']+", "_", word)


_SINGLE = frozenset(_joined(form) for form in _FORMS)


def names_a_secret_in_another_language(name: str) -> bool:
    """A name (`contraseña`, `DB_PASSWORT`, `mot_de_passe`, `数据库密码`, `пароль_бд`) that holds a secret word."""
    lowered = name.lower()
    joined = _joined(lowered)
    if joined in _SINGLE or any(part in _SINGLE for part in re.split(r"[^\w]+|_", lowered) if part):
        return True
    if "_" in joined and any(phrase in joined for phrase in _SINGLE if "_" in phrase):
        return True
    return bool(_UNSPACED_SCRIPTS.search(name)) and any(word in name for word in OTHER_WORDS
                                                         if _UNSPACED_SCRIPTS.search(word))


_LONGEST_PHRASE = 40


def letter(character: str) -> bool:
    """A letter of a word in any script (with the marks Devanagari and Arabic write on their letters)."""
    return character.isalnum() or unicodedata.category(character).startswith("M")


_MARKS = ("\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0900-\u0903"
          "\u093a-\u094f\u0951-\u0957\u0962\u0963\u3099\u309a")
"""Marks written on letters (Latin's combining accents, Hebrew's and Arabic's points, Devanagari's vowel signs)."""
_WORD = re.compile(r"[\w.\-" + _MARKS + r"]*")


def word_end(text: str, start: int) -> int:
    """Where the word (of letters in any script, digits, `_`, `-`, `.`) that starts at `start` ends."""
    found = _WORD.match(text, start)
    return found.end() if found else start


def word_start(text: str, end: int, most: int = 100) -> int:
    """Where the word that ends at `end` starts (looking back `most` characters at most)."""
    start, lowest = end, max(0, end - most)
    while start > lowest and (text[start - 1] in "_-." or letter(text[start - 1])):
        start -= 1
    return start


def phrase_end(text: str, start: int) -> int | None:
    """Where a secret phrase of words (`mot de passe`, `كلمة المرور`) that starts at `start` ends, if one does."""
    first = text[start:word_end(text, start)].lower()
    phrases = _PHRASES_BY_FIRST_WORD.get(first)
    if phrases is None:
        return None
    lowered = text[start:start + _LONGEST_PHRASE].lower()
    for phrase in phrases:
        if lowered.startswith(phrase) and (len(lowered) == len(phrase) or not lowered[len(phrase)].isalnum()):
            return start + len(phrase)
    return None


def _spellings(word: str) -> list[str]:
    return sorted({word, word[:1].upper() + word[1:], word.upper()})


class _ForeignScan:
    """Where the words with a letter that is not ASCII occur: one regular expression's scan of the text, each
    place given in characters."""

    def __init__(self) -> None:
        self.spellings = [(spelling, word) for word in OTHER_WORDS for spelling in _spellings(word)]
        # One regular expression over the text (only text that is not ASCII reaches it): a kept hyperscan database
        # of these byte sequences was seen to find nothing on a fresh machine, and a missed word is a leak.
        self._pattern: re.Pattern[str] | None = None

    def occurrences(self, text: str) -> list[tuple[int, str]]:
        if text.isascii():
            return []
        if self._pattern is None:
            self._pattern = re.compile("|".join(re.escape(spelling) for spelling, _ in
                                                sorted(self.spellings, key=lambda item: -len(item[0]))))
        return [(found.start(), self._word(found.group())) for found in self._pattern.finditer(text)]

    def _word(self, spelling: str) -> str:
        return next(word for known, word in self.spellings if known == spelling)


_SCAN: _ForeignScan | None = None


def foreign_occurrences(text: str) -> list[tuple[int, str]]:
    """Where a secret word with a letter that is not ASCII starts in `text`, and the word (in lower case)."""
    global _SCAN
    if text.isascii():
        return []
    if _SCAN is None:
        _SCAN = _ForeignScan()
    return _SCAN.occurrences(text)
