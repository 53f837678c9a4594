#include "redactionrules.h"

#include <QSet>
#include <QUrl>

namespace verity {

QString personalKindId(PersonalKind kind)
{
    switch (kind) {
    case PersonalKind::Name:
        return QStringLiteral("name");
    case PersonalKind::Email:
        return QStringLiteral("email");
    case PersonalKind::Phone:
        return QStringLiteral("phone");
    case PersonalKind::Address:
        return QStringLiteral("address");
    case PersonalKind::City:
        return QStringLiteral("city");
    case PersonalKind::PostalCode:
        return QStringLiteral("zip");
    case PersonalKind::UserId:
        return QStringLiteral("user_id");
    case PersonalKind::BirthDate:
        return QStringLiteral("birth_date");
    case PersonalKind::PaymentCard:
        return QStringLiteral("card");
    }
    return {};
}

QString personalKindLabel(PersonalKind kind, qint64 count)
{
    const bool one = count == 1;
    QString noun;
    switch (kind) {
    case PersonalKind::Name:
        noun = one ? QStringLiteral("name") : QStringLiteral("names");
        break;
    case PersonalKind::Email:
        noun = one ? QStringLiteral("e-mail address") : QStringLiteral("e-mail addresses");
        break;
    case PersonalKind::Phone:
        noun = one ? QStringLiteral("phone number") : QStringLiteral("phone numbers");
        break;
    case PersonalKind::Address:
        noun = one ? QStringLiteral("street address") : QStringLiteral("street addresses");
        break;
    case PersonalKind::City:
        noun = one ? QStringLiteral("city") : QStringLiteral("cities");
        break;
    case PersonalKind::PostalCode:
        noun = one ? QStringLiteral("postal code") : QStringLiteral("postal codes");
        break;
    case PersonalKind::UserId:
        noun = one ? QStringLiteral("user id") : QStringLiteral("user ids");
        break;
    case PersonalKind::BirthDate:
        noun = one ? QStringLiteral("date of birth") : QStringLiteral("dates of birth");
        break;
    case PersonalKind::PaymentCard:
        noun = one ? QStringLiteral("card number") : QStringLiteral("card numbers");
        break;
    }
    return QStringLiteral("%1 %2").arg(count).arg(noun);
}

namespace redaction {

namespace {

using KeySet = QSet<QString>;

KeySet keySet(std::initializer_list<const char16_t *> keys)
{
    KeySet set;
    for (const char16_t *key : keys)
        set.insert(QString::fromUtf16(key));
    return set;
}

// Keys are compared after normalizedKey(): "firstName" and "first-name" are "first_name".
const KeySet &nameKeys()
{
    static const KeySet keys = keySet(
            {u"first_name",     u"firstname",    u"given_name",     u"last_name",       u"lastname",
             u"surname",        u"family_name",  u"middle_name",    u"full_name",       u"fullname",
             u"customer_name",  u"buyer_name",   u"buyer",          u"customer",        u"holder",
             u"holder_name",    u"card_holder",  u"cardholder",     u"cardholder_name", u"account_holder",
             u"passenger_name", u"recipient",    u"recipient_name", u"contact_name",    u"billing_name",
             u"shipping_name",  u"name_on_card", u"ship_to_name",   u"bill_to_name",    u"deliver_to_name"});
    return keys;
}

const KeySet &emailKeys()
{
    static const KeySet keys = keySet({u"email", u"e_mail", u"email_address", u"e_mail_address", u"mail"});
    return keys;
}

const KeySet &phoneKeys()
{
    static const KeySet keys = keySet({u"phone", u"phone_number", u"phonenumber", u"mobile", u"mobile_number",
                                       u"telephone", u"telephone_number", u"tel", u"cell", u"cell_phone",
                                       u"cellphone", u"contact_number", u"contact_phone", u"msisdn"});
    return keys;
}

const KeySet &addressKeys()
{
    static const KeySet keys = keySet({u"address", u"address1", u"address2", u"address3", u"line1", u"line2",
                                       u"line3", u"street", u"street1", u"street2", u"street_address",
                                       u"street_name", u"house_number", u"address_line", u"po_box"});
    return keys;
}

// "ip_address" or "wallet_address" is not where anybody lives.
const KeySet &notPostalAddressTokens()
{
    static const KeySet tokens =
            keySet({u"ip",      u"mac",     u"email",  u"e",      u"wallet",   u"web",    u"url",
                    u"server",  u"host",    u"remote", u"local",  u"contract", u"memory", u"bluetooth",
                    u"network", u"bitcoin", u"eth",    u"crypto", u"ipv4",     u"ipv6",   u"socket"});
    return tokens;
}

const KeySet &postalKeys()
{
    static const KeySet keys = keySet({u"zip", u"zip_code", u"zipcode", u"postcode", u"post_code",
                                       u"postal_code", u"postalcode", u"plz"});
    return keys;
}

const KeySet &userIdKeys()
{
    static const KeySet keys = keySet({u"user_id", u"userid", u"customer_id", u"buyer_id", u"username",
                                       u"user_name", u"account_id", u"login"});
    return keys;
}

const KeySet &birthKeys()
{
    static const KeySet keys = keySet(
            {u"dob", u"date_of_birth", u"birth_date", u"birthdate", u"birthday", u"born_on", u"birth_day"});
    return keys;
}

const KeySet &cardKeys()
{
    static const KeySet keys =
            keySet({u"last_four", u"last4", u"last_4", u"card_last4", u"card_last_4", u"card_last_four",
                    u"card_number", u"cardnumber", u"pan", u"cc_number"});
    return keys;
}

// Words in a key that make it about a person: "recipient_name", "customerEmail", "shipTo".
const KeySet &personTokens()
{
    static const KeySet tokens =
            keySet({u"customer",  u"buyer",      u"recipient", u"receiver",    u"consignee", u"addressee",
                    u"passenger", u"passengers", u"traveler",  u"travelers",   u"traveller", u"travellers",
                    u"contact",   u"cardholder", u"holder",    u"payer",       u"guest",     u"patient",
                    u"member",    u"client",     u"sender",    u"beneficiary", u"person",    u"spouse"});
    return tokens;
}

// Objects under these keys are about a person or where a parcel goes to.
const KeySet &personObjectKeys()
{
    static const KeySet keys = keySet({u"user",
                                       u"users",
                                       u"saved_passengers",
                                       u"shipping",
                                       u"billing",
                                       u"delivery",
                                       u"profile",
                                       u"name",
                                       u"ship_to",
                                       u"shipto",
                                       u"bill_to",
                                       u"billto",
                                       u"deliver_to",
                                       u"sold_to",
                                       u"send_to",
                                       u"mail_to",
                                       u"shipping_details",
                                       u"shipping_info",
                                       u"billing_details",
                                       u"billing_info",
                                       u"delivery_details",
                                       u"delivery_info",
                                       u"shipping_contact",
                                       u"billing_contact"});
    return keys;
}

const KeySet &titles()
{
    static const KeySet words =
            keySet({u"mr", u"mrs", u"ms", u"miss", u"mx", u"dr", u"prof", u"sir", u"madam", u"dame", u"lady",
                    u"lord", u"rev", u"herr", u"frau", u"mme", u"mlle", u"m"});
    return words;
}

// Given names and surnames that are everyday words. Folded; add to it when a name eats text.
const KeySet &commonWords()
{
    static const KeySet words = keySet(
            {u"may",      u"will",   u"rose",   u"bill",    u"mark",   u"grant",  u"june",     u"april",
             u"august",   u"faith",  u"hope",   u"joy",     u"grace",  u"dawn",   u"summer",   u"autumn",
             u"winter",   u"sky",    u"river",  u"rich",    u"ray",    u"jack",   u"frank",    u"sue",
             u"pat",      u"art",    u"dean",   u"chase",   u"hunter", u"carter", u"cook",     u"baker",
             u"brown",    u"green",  u"white",  u"black",   u"gray",   u"grey",   u"young",    u"king",
             u"wood",     u"page",   u"bell",   u"hall",    u"hill",   u"stone",  u"lane",     u"long",
             u"little",   u"price",  u"best",   u"law",     u"street", u"park",   u"ward",     u"north",
             u"west",     u"east",   u"south",  u"day",     u"guy",    u"penny",  u"ruby",     u"amber",
             u"iris",     u"ivy",    u"holly",  u"daisy",   u"lily",   u"violet", u"heather",  u"hazel",
             u"sandy",    u"rusty",  u"don",    u"rob",     u"nick",   u"miles",  u"wells",    u"banks",
             u"case",     u"cash",   u"fisher", u"fox",     u"gates",  u"glass",  u"hart",     u"hunt",
             u"lamb",     u"love",   u"mason",  u"miller",  u"moss",   u"noble",  u"reed",     u"rice",
             u"rivers",   u"rock",   u"rush",   u"sharp",   u"short",  u"small",  u"snow",     u"storm",
             u"strong",   u"swift",  u"taylor", u"todd",    u"walker", u"waters", u"webb",     u"wolf",
             u"lee",      u"bishop", u"cole",   u"crane",   u"drew",   u"earl",   u"ford",     u"gill",
             u"harley",   u"jay",    u"joy",    u"justice", u"major",  u"marsh",  u"max",      u"mercy",
             u"pearl",    u"pierce", u"porter", u"royal",   u"sage",   u"skip",   u"sterling", u"sunny",
             u"tucker",   u"wade",   u"wren",   u"order",   u"refund", u"thanks", u"dear",     u"hello",
             u"customer", u"buyer",  u"so",     u"an",      u"or",     u"and",    u"the"});
    return words;
}

bool endsWithAny(const QString &key, std::initializer_list<const char16_t *> suffixes)
{
    for (const char16_t *suffix : suffixes) {
        const QString text = QString::fromUtf16(suffix);
        if (key == text || key.endsWith(u'_' + text))
            return true;
    }
    return false;
}

bool hasPersonToken(const QStringList &tokens)
{
    for (const QString &token : tokens) {
        if (personTokens().contains(token))
            return true;
    }
    return false;
}

QString hexByte(uchar byte)
{
    // Both cases of each hex letter, so "%2b" and "%2B" match even in a case-sensitive pattern.
    QString out = QStringLiteral("%");
    for (int nibble : {byte >> 4, byte & 0xF}) {
        const QChar upper = QChar::fromLatin1("0123456789ABCDEF"[nibble]);
        out += upper.isDigit() ? QString(upper) : QStringLiteral("[%1%2]").arg(upper, upper.toLower());
    }
    return out;
}

} // namespace

QString normalizedKey(const QString &key)
{
    QString out;
    out.reserve(key.size() + 4);
    for (qsizetype i = 0; i < key.size(); ++i) {
        const QChar c = key.at(i);
        const QChar before = i > 0 ? key.at(i - 1) : QChar();
        const QChar after = i + 1 < key.size() ? key.at(i + 1) : QChar();
        // "customerName" -> customer_name, "HTTPStatus" -> http_status, "addressLine1" stays whole.
        if (c.isUpper() && i > 0
            && (before.isLower() || before.isDigit() || (before.isUpper() && after.isLower())))
            out.append(u'_');
        if (c == u' ' || c == u'-' || c == u'.' || c == u'_') {
            if (!out.isEmpty() && !out.endsWith(u'_'))
                out.append(u'_');
            continue;
        }
        out.append(c.toLower());
    }
    while (out.endsWith(u'_'))
        out.chop(1);
    return out;
}

std::optional<PersonalKind> kindOfKey(const QString &key, bool personObject)
{
    const QStringList tokens = key.split(u'_', Qt::SkipEmptyParts);
    if (userIdKeys().contains(key))
        return PersonalKind::UserId;
    if (nameKeys().contains(key) || (key == u"name" && personObject)
        || (tokens.size() > 1 && tokens.last() == u"name" && hasPersonToken(tokens)))
        return PersonalKind::Name;
    if (emailKeys().contains(key) || endsWithAny(key, {u"email", u"email_address", u"e_mail"}))
        return PersonalKind::Email;
    if (phoneKeys().contains(key)
        || endsWithAny(key,
                       {u"phone", u"phone_number", u"mobile", u"mobile_number", u"telephone",
                        u"contact_number", u"cell_number", u"mobile_phone", u"cell_phone"}))
        return PersonalKind::Phone;
    if (cardKeys().contains(key))
        return PersonalKind::PaymentCard;
    if (birthKeys().contains(key) || endsWithAny(key, {u"dob", u"date_of_birth", u"birth_date", u"birthday"}))
        return PersonalKind::BirthDate;
    if (postalKeys().contains(key)
        || endsWithAny(key, {u"zip", u"zip_code", u"zipcode", u"postal_code", u"postcode", u"post_code"}))
        return PersonalKind::PostalCode;
    if (key == u"city" || key == u"town" || endsWithAny(key, {u"city", u"town"}))
        return PersonalKind::City;
    if (addressKeys().contains(key)
        || (tokens.size() > 1 && tokens.first() == u"address" && tokens.at(1).startsWith(u"line"))
        || endsWithAny(
                key, {u"address_line1", u"address_line2", u"address_line_1", u"address_line_2", u"street"})) {
        return PersonalKind::Address;
    }
    if (tokens.size() > 1 && tokens.last() == u"address") {
        for (const QString &token : tokens) {
            if (notPostalAddressTokens().contains(token))
                return std::nullopt;
        }
        return PersonalKind::Address;
    }
    return std::nullopt;
}

bool isPersonKey(const QString &key)
{
    if (personObjectKeys().contains(key) || nameKeys().contains(key))
        return true;
    const QStringList tokens = key.split(u'_', Qt::SkipEmptyParts);
    if (hasPersonToken(tokens))
        return !key.endsWith(QLatin1String("_id")) && !key.endsWith(QLatin1String("_ids"));
    return kindOfKey(key, false) == PersonalKind::Address; // an address block names who lives there
}

bool isPersonSignal(const QString &key)
{
    const std::optional<PersonalKind> kind = kindOfKey(key, false);
    return kind == PersonalKind::Name || kind == PersonalKind::Email || kind == PersonalKind::Phone
            || kind == PersonalKind::BirthDate;
}

bool isFirstNameKey(const QString &key)
{
    return key == u"first_name" || key == u"given_name" || key == u"firstname";
}

bool isLastNameKey(const QString &key)
{
    return key == u"last_name" || key == u"family_name" || key == u"surname" || key == u"lastname";
}

bool isNameTitle(const QString &folded)
{
    QString word = folded;
    while (word.endsWith(u'.'))
        word.chop(1);
    return titles().contains(word);
}

bool isCommonWord(const QString &folded)
{
    return commonWords().contains(folded);
}

// ---- text shapes ----

const QRegularExpression &emailPattern()
{
    static const QRegularExpression pattern(QStringLiteral(
            R"([A-Za-z0-9._%+\-]+(?:@|%40)[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,})"));
    return pattern;
}

// Written with separators or a leading "+" (or "%2B"): a bare run of digits is an item id far
// more often. Not inside a longer token: uuids, order ids ("SU-88421"), dates (4-2-2) stay.
const QRegularExpression &phonePattern()
{
    static const QRegularExpression pattern(QStringLiteral(
            R"((?<![\w+\-./#%])(?:(?:\+|%2[Bb])\d{8,15}|(?:\+|%2[Bb])\d{1,3}[ .\-]?(?:\(\d{1,4}\)[ .\-]?)?\d{1,4}(?:[ .\-]\d{2,4}){1,4})"
            R"(|(?:1[ .\-])?(?:\(\d{3}\) ?|\d{3}[ .\-])\d{3}[ .\-]\d{4})(?![\w\-]|[.,]\d))"));
    return pattern;
}

// National numbers with a trunk 0 (UK, FR, DE): the caller checks for 10 or 11 digits.
const QRegularExpression &trunkPhonePattern()
{
    static const QRegularExpression pattern(QStringLiteral(
            R"((?<![\w+\-./#%$])(?:\(0\d{1,4}\) ?|0\d{2,4}[ \-])\d{2,4}(?:[ \-]?\d{2,4}){0,3}(?![\w\-]|[.,]\d))"));
    return pattern;
}

const QRegularExpression &shortPhonePattern()
{
    static const QRegularExpression pattern(
            QStringLiteral(R"((?<![\w+\-./#%$,])\d{3}-\d{4}(?![\w\-]|[.,]\d))"));
    return pattern;
}

// Digits in groups of 2-6 after a first group of four: the caller checks 13-19 digits and Luhn,
// which a run of order or item ids hardly ever passes.
const QRegularExpression &cardPattern()
{
    static const QRegularExpression pattern(
            QStringLiteral(R"((?<![\w\-./#%$,])\d{4}(?:[ \-]\d{2,6}){2,4}(?![\w\-]|[.,]\d))"));
    return pattern;
}

const QRegularExpression &streetPattern()
{
    static const QRegularExpression pattern(QStringLiteral(
            // "443 Maple Drive": a house number, capitalised words, a street suffix.
            R"((?<![\w\-.$#])\d{1,6}[A-Za-z]?\s+(?:[A-Z][\p{L}'.\-]*\s+){1,4})"
            R"((?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Drive|Dr|Lane|Ln|Way|Court|Ct|Place|Pl|Terrace|Ter)"
            R"(|Circle|Cir|Parkway|Pkwy|Highway|Hwy|Square|Sq|Trail|Trl|Close|Crescent|Row|Alley|Loop|Gardens|Mews)\b\.?)"
            // "42 rue de Rivoli", "4 Rue de la Paix", "12 avenida del Mar": the street type first.
            R"(|(?<![\w\-.$#])\d{1,5}(?:\s?(?:bis|ter))?,?\s+)"
            R"((?i:rue|avenue|av\.|boulevard|bd|place|chemin|allée|allee|impasse|quai|route|calle|avenida|plaza|rua|viale|piazza|corso))"
            R"(\s+(?:(?i:de|du|des|la|le|les|del|della|di|da|do|dos|d'|l')\s*)*[\p{Lu}][\p{L}'\-]*(?:\s+[\p{Lu}][\p{L}'\-]*){0,3})"
            // "Hauptstraße 5", "Keizersgracht 12a": the type as a suffix, the number after.
            R"(|(?<![\w\-])[\p{Lu}][\p{L}\-]*(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|ufer|laan|straat|gracht|plein))"
            R"(\s+\d{1,4}[a-z]?\b)"
            // "Via Roma 5", "Calle Mayor 3": the type first, capitalised, the number after.
            R"(|(?<![\w\-])(?:Via|Viale|Piazza|Calle|Carrer|Rua|Avenida|Plaza)\s+[\p{Lu}][\p{L}'\-]*(?:\s+[\p{Lu}][\p{L}'\-]*){0,2},?\s+\d{1,4}\b)"));
    return pattern;
}

const QRegularExpression &unitPattern()
{
    static const QRegularExpression pattern(QStringLiteral(
            R"((?<![\w\-])(?:(?:Apt|Apartment|Suite|Ste|Unit|Flat)\.?\s*#?\d+[A-Za-z]?|(?i:P\.?\s?O\.?\s*Box)\s*\d+)\b)"));
    return pattern;
}

// "NW1 6XE", "SW1A 1AA", with the space (without it, order ids look the same), and the
// capitalised word before it, which is the town ("London NW1 6XE").
const QRegularExpression &ukPostcodePattern()
{
    static const QRegularExpression pattern(
            QStringLiteral(R"((?:\b([\p{Lu}][\p{Ll}]+),?\s+)?\b([A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2})\b)"));
    return pattern;
}

// "75001 Paris", "10115 Berlin": five digits and the capitalised town after them.
const QRegularExpression &zipCityPattern()
{
    static const QRegularExpression pattern(QStringLiteral(
            R"((?<![\w\-.$#,])(\d{5})\s+([\p{Lu}][\p{Ll}]+(?:-[\p{Lu}]?[\p{Ll}]+)*)(?![\w\-]))"));
    return pattern;
}

const QRegularExpression &introducedNamePattern()
{
    static const QRegularExpression pattern(QStringLiteral(
            R"((?i:\bmy name is|\bmy name's)\s+([A-Z][\p{L}'’\-]+(?:\s+[A-Z][\p{L}'’\-]+){0,2}))"));
    return pattern;
}

// first_last_1234: the shape τ-bench user ids take; only kept as a user id when it spells a name.
const QRegularExpression &userIdShape()
{
    static const QRegularExpression pattern(QStringLiteral(R"(^([a-z]+)_([a-z]+)_\d+$)"));
    return pattern;
}

const QRegularExpression &userIdInText()
{
    static const QRegularExpression pattern(QStringLiteral(R"((?<![\w])[a-z]+_[a-z]+_\d{2,}(?![\w]))"));
    return pattern;
}

const QRegularExpression &urlInText()
{
    static const QRegularExpression pattern(QStringLiteral(R"(\b(?i:https?|ftp)://[^\s"'<>]+)"));
    return pattern;
}

int digitCount(const QString &text)
{
    int count = 0;
    for (QChar c : text)
        count += c.isDigit() ? 1 : 0;
    return count;
}

bool luhnValid(const QString &text)
{
    int sum = 0;
    bool doubled = false;
    for (qsizetype i = text.size() - 1; i >= 0; --i) {
        if (!text.at(i).isDigit())
            continue;
        int digit = text.at(i).digitValue();
        if (doubled && (digit *= 2) > 9)
            digit -= 9;
        sum += digit;
        doubled = !doubled;
    }
    return sum % 10 == 0;
}

// ---- URL encoding ----

QString percentDecoded(const QString &text, bool plusIsSpace)
{
    if (!text.contains(u'%') && !(plusIsSpace && text.contains(u'+')))
        return text;
    QByteArray bytes = text.toUtf8();
    if (plusIsSpace)
        bytes.replace('+', ' ');
    return QString::fromUtf8(QByteArray::fromPercentEncoding(bytes));
}

QString percentEncoded(const QString &text, bool plusForSpace)
{
    QString encoded = QString::fromLatin1(QUrl::toPercentEncoding(text));
    if (plusForSpace)
        encoded.replace(QStringLiteral("%20"), QStringLiteral("+"));
    return encoded;
}

QString literalPattern(const QString &value)
{
    QString out;
    bool inSpace = false;
    for (char32_t code : value.simplified().toUcs4()) {
        if (code == U' ') {
            if (!inSpace)
                out += QStringLiteral(R"((?:[\s+]|%20)+)");
            inSpace = true;
            continue;
        }
        inSpace = false;
        const QString character = QString::fromUcs4(&code, 1);
        if (code == U'\'' || code == U'\u2019') {
            out += QStringLiteral("(?:['’]|%27|%[Ee]2%80%99)");
        } else if (code < 0x80 && (QChar(code).isLetterOrNumber())) {
            out += character;
        } else {
            QString encoded;
            for (char byte : character.toUtf8())
                encoded += hexByte(uchar(byte));
            out += QStringLiteral("(?:%1|%2)").arg(QRegularExpression::escape(character), encoded);
        }
    }
    return out;
}

} // namespace redaction
} // namespace verity
