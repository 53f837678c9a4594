#include "redaction.h"

#include "domain/jsontext.h"

#include <QSet>

#include <algorithm>
#include <utility>

namespace verity {

using nlohmann::json;

namespace {

QString fold(const QString &value)
{
    return value.simplified().toCaseFolded();
}

// Phone numbers are one value however they are written: the last ten digits.
QString phoneKey(const QString &value)
{
    QString digits;
    for (QChar c : value) {
        if (c.isDigit())
            digits.append(c);
    }
    if (digits.size() < 7)
        return {};
    return QStringLiteral("tel:") + digits.right(10);
}

QString normalizedKey(const std::string &key)
{
    QString text = fromUtf8String(key).toLower();
    text.replace(u' ', u'_').replace(u'-', u'_');
    return text;
}

using KeySet = QSet<QString>;

const KeySet &nameKeys()
{
    static const KeySet keys{
        QStringLiteral("first_name"),      QStringLiteral("firstname"),     QStringLiteral("given_name"),
        QStringLiteral("last_name"),       QStringLiteral("lastname"),      QStringLiteral("surname"),
        QStringLiteral("family_name"),     QStringLiteral("middle_name"),   QStringLiteral("full_name"),
        QStringLiteral("fullname"),        QStringLiteral("customer_name"), QStringLiteral("buyer_name"),
        QStringLiteral("buyer"),           QStringLiteral("customer"),      QStringLiteral("holder"),
        QStringLiteral("holder_name"),     QStringLiteral("card_holder"),   QStringLiteral("cardholder"),
        QStringLiteral("cardholder_name"), QStringLiteral("account_holder"), QStringLiteral("passenger_name"),
        QStringLiteral("recipient"),       QStringLiteral("recipient_name"), QStringLiteral("contact_name"),
        QStringLiteral("billing_name"),    QStringLiteral("shipping_name")};
    return keys;
}

const KeySet &emailKeys()
{
    static const KeySet keys{QStringLiteral("email"),          QStringLiteral("e_mail"),
                             QStringLiteral("email_address"),  QStringLiteral("customer_email"),
                             QStringLiteral("buyer_email"),    QStringLiteral("contact_email")};
    return keys;
}

const KeySet &phoneKeys()
{
    static const KeySet keys{QStringLiteral("phone"),     QStringLiteral("phone_number"),  QStringLiteral("phonenumber"),
                             QStringLiteral("mobile"),    QStringLiteral("mobile_number"), QStringLiteral("telephone"),
                             QStringLiteral("tel"),       QStringLiteral("contact_phone"), QStringLiteral("cell")};
    return keys;
}

const KeySet &addressKeys()
{
    static const KeySet keys{
        QStringLiteral("address"),        QStringLiteral("address1"),         QStringLiteral("address2"),
        QStringLiteral("address_1"),      QStringLiteral("address_2"),        QStringLiteral("address_line1"),
        QStringLiteral("address_line2"),  QStringLiteral("address_line_1"),   QStringLiteral("address_line_2"),
        QStringLiteral("line1"),          QStringLiteral("line2"),            QStringLiteral("street"),
        QStringLiteral("street_address"), QStringLiteral("shipping_address"), QStringLiteral("billing_address"),
        QStringLiteral("delivery_address"), QStringLiteral("home_address")};
    return keys;
}

const KeySet &cityKeys()
{
    static const KeySet keys{QStringLiteral("city"), QStringLiteral("town")};
    return keys;
}

const KeySet &postalKeys()
{
    static const KeySet keys{QStringLiteral("zip"),      QStringLiteral("zip_code"),  QStringLiteral("zipcode"),
                             QStringLiteral("postcode"), QStringLiteral("post_code"), QStringLiteral("postal_code")};
    return keys;
}

const KeySet &userIdKeys()
{
    static const KeySet keys{QStringLiteral("user_id"),  QStringLiteral("userid"),    QStringLiteral("customer_id"),
                             QStringLiteral("buyer_id"), QStringLiteral("username"),  QStringLiteral("user_name"),
                             QStringLiteral("account_id")};
    return keys;
}

const KeySet &birthKeys()
{
    static const KeySet keys{QStringLiteral("dob"), QStringLiteral("date_of_birth"), QStringLiteral("birth_date"),
                             QStringLiteral("birthdate"), QStringLiteral("birthday")};
    return keys;
}

const KeySet &cardKeys()
{
    static const KeySet keys{QStringLiteral("last_four"),      QStringLiteral("last4"),
                             QStringLiteral("card_last4"),     QStringLiteral("card_last_four"),
                             QStringLiteral("card_number"),    QStringLiteral("pan")};
    return keys;
}

// Objects under these keys are about a person: a plain `name` in them is the person's.
const KeySet &personKeys()
{
    static const KeySet keys{
        QStringLiteral("customer"),   QStringLiteral("buyer"),      QStringLiteral("user"),
        QStringLiteral("users"),      QStringLiteral("passenger"),  QStringLiteral("passengers"),
        QStringLiteral("saved_passengers"), QStringLiteral("recipient"), QStringLiteral("contact"),
        QStringLiteral("cardholder"), QStringLiteral("holder"),     QStringLiteral("traveler"),
        QStringLiteral("travelers"),  QStringLiteral("traveller"),  QStringLiteral("travellers"),
        QStringLiteral("shipping"),   QStringLiteral("billing"),    QStringLiteral("profile"),
        QStringLiteral("name"),       QStringLiteral("address"),    QStringLiteral("shipping_address"),
        QStringLiteral("billing_address")};
    return keys;
}

// A key beside `name` that says the object describes a person, not a product or a seller.
bool isPersonSignal(const QString &key)
{
    return key != u"customer_id" && key != u"user_id"
           && (nameKeys().contains(key) || emailKeys().contains(key) || phoneKeys().contains(key)
               || birthKeys().contains(key));
}

const QStringList &nameTitles()
{
    static const QStringList titles{QStringLiteral("mr"),   QStringLiteral("mrs"),  QStringLiteral("ms"),
                                    QStringLiteral("miss"), QStringLiteral("dr"),   QStringLiteral("prof"),
                                    QStringLiteral("sir"),  QStringLiteral("madam")};
    return titles;
}

QString capitalized(const QString &part)
{
    return part.isEmpty() ? part : part.left(1).toUpper() + part.mid(1);
}

// ---- what text patterns find ----

const QRegularExpression &emailPattern()
{
    static const QRegularExpression pattern(QStringLiteral(R"([A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,})"));
    return pattern;
}

// Written with separators or a leading "+": a bare run of digits is an item id far more often.
// Not inside a longer token: uuids, order ids ("SU-88421"), dates (4-2-2 digits) stay.
const QRegularExpression &phonePattern()
{
    static const QRegularExpression pattern(QStringLiteral(
        R"((?<![\w+\-./#])(?:\+\d{8,15}|\+\d{1,3}[ .\-]?(?:\(\d{1,4}\)[ .\-]?)?\d{1,4}(?:[ .\-]\d{2,4}){1,4})"
        R"(|(?:1[ .\-])?(?:\(\d{3}\) ?|\d{3}[ .\-])\d{3}[ .\-]\d{4})(?![\w\-]|[.,]\d))"));
    return pattern;
}

// A house number, one to four capitalised words and a street suffix: "443 Maple Drive".
const QRegularExpression &streetPattern()
{
    static const QRegularExpression pattern(QStringLiteral(
        R"((?<![\w\-.$#])\d{1,6}[A-Za-z]?\s+(?:[A-Z][\p{L}'.\-]*\s+){1,4})"
        R"((?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Drive|Dr|Lane|Ln|Way|Court|Ct|Place|Pl|Terrace|Ter)"
        R"(|Circle|Cir|Parkway|Pkwy|Highway|Hwy|Square|Sq|Trail|Trl|Close|Crescent|Row|Alley|Loop)\b\.?)"));
    return pattern;
}

const QRegularExpression &unitPattern()
{
    static const QRegularExpression pattern(
        QStringLiteral(R"((?<![\w\-])(?:Apt|Apartment|Suite|Ste|Unit|Flat)\.?\s*#?\d+[A-Za-z]?\b)"));
    return pattern;
}

const QRegularExpression &introducedNamePattern()
{
    static const QRegularExpression pattern(
        QStringLiteral(R"((?i:\bmy name is|\bmy name's)\s+([A-Z][\p{L}'\-]+(?:\s+[A-Z][\p{L}'\-]+){0,2}))"));
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

QString literalAlternative(const QString &value)
{
    QStringList words = value.simplified().split(u' ');
    for (QString &word : words)
        word = QRegularExpression::escape(word);
    return words.join(QStringLiteral("\\s+"));
}

struct Span
{
    qsizetype start = 0;
    qsizetype length = 0;
    QString replacement;
    PersonalKind kind = PersonalKind::Name;
};

bool overlaps(const QList<Span> &taken, qsizetype start, qsizetype length)
{
    for (const Span &span : taken) {
        if (start < span.start + span.length && span.start < start + length)
            return true;
    }
    return false;
}

} // namespace

QString personalKindId(PersonalKind kind)
{
    switch (kind) {
    case PersonalKind::Name: return QStringLiteral("name");
    case PersonalKind::Email: return QStringLiteral("email");
    case PersonalKind::Phone: return QStringLiteral("phone");
    case PersonalKind::Address: return QStringLiteral("address");
    case PersonalKind::City: return QStringLiteral("city");
    case PersonalKind::PostalCode: return QStringLiteral("zip");
    case PersonalKind::UserId: return QStringLiteral("user_id");
    case PersonalKind::BirthDate: return QStringLiteral("birth_date");
    case PersonalKind::PaymentCard: return QStringLiteral("card");
    }
    return {};
}

QString personalKindLabel(PersonalKind kind, qint64 count)
{
    const bool one = count == 1;
    QString noun;
    switch (kind) {
    case PersonalKind::Name: noun = one ? QStringLiteral("name") : QStringLiteral("names"); break;
    case PersonalKind::Email: noun = one ? QStringLiteral("e-mail address") : QStringLiteral("e-mail addresses"); break;
    case PersonalKind::Phone: noun = one ? QStringLiteral("phone number") : QStringLiteral("phone numbers"); break;
    case PersonalKind::Address: noun = one ? QStringLiteral("street address") : QStringLiteral("street addresses"); break;
    case PersonalKind::City: noun = one ? QStringLiteral("city") : QStringLiteral("cities"); break;
    case PersonalKind::PostalCode: noun = one ? QStringLiteral("postal code") : QStringLiteral("postal codes"); break;
    case PersonalKind::UserId: noun = one ? QStringLiteral("user id") : QStringLiteral("user ids"); break;
    case PersonalKind::BirthDate: noun = one ? QStringLiteral("date of birth") : QStringLiteral("dates of birth"); break;
    case PersonalKind::PaymentCard: noun = one ? QStringLiteral("card number") : QStringLiteral("card numbers"); break;
    }
    return QStringLiteral("%1 %2").arg(count).arg(noun);
}

BuyerDataRedactor::BuyerDataRedactor() = default;

// ---- values and their placeholders ----

QString BuyerDataRedactor::learnName(const QString &fullName)
{
    QString name = fullName.simplified();
    while (!name.isEmpty() && !name.back().isLetter())
        name.chop(1);
    if (name.size() < 2 || !name.front().isLetter())
        return {};
    const QString key = fold(name);
    if (auto known = m_placeholders.constFind(key); known != m_placeholders.cend())
        return *known;

    QStringList parts;
    for (const QString &part : name.split(u' ', Qt::SkipEmptyParts)) {
        QString trimmed = part;
        while (!trimmed.isEmpty() && !trimmed.back().isLetter())
            trimmed.chop(1);
        if (trimmed.size() >= 2 && !nameTitles().contains(fold(trimmed)))
            parts.append(trimmed);
    }
    if (parts.isEmpty())
        return {};
    // The same person when every part already belongs to one of them ("Dana", then "Dana
    // Whitfield"); a new one otherwise.
    QString placeholder;
    for (const QString &part : std::as_const(parts)) {
        const QString owner = m_nameParts.value(fold(part));
        if (owner.isEmpty() || (!placeholder.isEmpty() && owner != placeholder)) {
            placeholder.clear();
            break;
        }
        placeholder = owner;
    }
    if (placeholder.isEmpty()) {
        placeholder = QStringLiteral("Buyer %1").arg(++m_next[PersonalKind::Name]);
        m_kindOfPlaceholder.insert(placeholder, PersonalKind::Name);
    }
    m_placeholders.insert(key, placeholder);
    if (parts.size() > 1)
        m_literals.append(name);
    for (const QString &part : std::as_const(parts)) {
        if (!m_nameParts.contains(fold(part)))
            m_nameParts.insert(fold(part), placeholder);
    }
    m_patternsStale = true;
    return placeholder;
}

QString BuyerDataRedactor::placeholderFor(PersonalKind kind, const QString &value)
{
    const QString text = value.simplified();
    if (text.size() < 2)
        return {};
    if (kind == PersonalKind::Name)
        return learnName(text);
    if (kind == PersonalKind::Email && text.endsWith(QLatin1String("@example.invalid"), Qt::CaseInsensitive))
        return text; // already a placeholder
    const QString key = kind == PersonalKind::Phone && !phoneKey(text).isEmpty() ? phoneKey(text) : fold(text);
    if (auto known = m_placeholders.constFind(key); known != m_placeholders.cend())
        return *known;
    if (auto known = m_placeholders.constFind(fold(text)); known != m_placeholders.cend())
        return *known;
    if (auto part = m_nameParts.constFind(fold(text)); part != m_nameParts.cend())
        return *part;

    const int number = ++m_next[kind];
    QString placeholder;
    switch (kind) {
    case PersonalKind::Name: break;
    case PersonalKind::Email: placeholder = QStringLiteral("buyer%1@example.invalid").arg(number); break;
    case PersonalKind::Phone: placeholder = QStringLiteral("[phone %1]").arg(number); break;
    case PersonalKind::Address: placeholder = QStringLiteral("[address %1]").arg(number); break;
    case PersonalKind::City: placeholder = QStringLiteral("[city %1]").arg(number); break;
    case PersonalKind::PostalCode: placeholder = QStringLiteral("[zip %1]").arg(number); break;
    case PersonalKind::UserId: placeholder = QStringLiteral("[user id %1]").arg(number); break;
    case PersonalKind::BirthDate: placeholder = QStringLiteral("[birth date %1]").arg(number); break;
    case PersonalKind::PaymentCard: placeholder = QStringLiteral("[card %1]").arg(number); break;
    }
    m_placeholders.insert(key, placeholder);
    m_kindOfPlaceholder.insert(placeholder, kind);
    // Found under a key, the value is taken out of text too; three digits or fewer would
    // take amounts and counts with them.
    bool digitsOnly = true;
    for (QChar c : text)
        digitsOnly = digitsOnly && c.isDigit();
    if (!digitsOnly || text.size() >= 4) {
        m_literals.append(text);
        m_patternsStale = true;
    }
    return placeholder;
}

std::optional<QString> BuyerDataRedactor::placeholderOf(const QString &value) const
{
    const QString key = fold(value);
    if (auto known = m_placeholders.constFind(key); known != m_placeholders.cend())
        return *known;
    if (auto part = m_nameParts.constFind(key); part != m_nameParts.cend())
        return *part;
    if (const QString phone = phoneKey(value); !phone.isEmpty()) {
        if (auto known = m_placeholders.constFind(phone); known != m_placeholders.cend())
            return *known;
    }
    return std::nullopt;
}

bool BuyerDataRedactor::spellsKnownName(const QString &userId) const
{
    const QString folded = fold(userId);
    for (auto it = m_nameParts.cbegin(); it != m_nameParts.cend(); ++it) {
        const QString &part = it.key();
        if (part.size() >= 4 ? folded.contains(part)
                             : folded.split(QRegularExpression(QStringLiteral("[^\\p{L}]+")), Qt::SkipEmptyParts)
                                       .contains(part))
            return true;
    }
    return false;
}

void BuyerDataRedactor::learnUserId(const QString &value, bool underUserIdKey)
{
    // Only an id a user-id key names may teach a name: in text, credit_card_9503061 has the
    // same shape.
    const QRegularExpressionMatch shaped = userIdShape().match(value);
    if (underUserIdKey && shaped.hasMatch())
        learnName(capitalized(shaped.captured(1)) + u' ' + capitalized(shaped.captured(2)));
    if (spellsKnownName(value))
        placeholderFor(PersonalKind::UserId, value);
}

const QRegularExpression &BuyerDataRedactor::knownValuesPattern(bool caseSensitive)
{
    if (m_patternsStale) {
        QStringList insensitive = m_literals;
        QStringList sensitive;
        for (auto it = m_nameParts.cbegin(); it != m_nameParts.cend(); ++it)
            sensitive.append(capitalized(it.key()));
        const auto longestFirst = [](const QString &a, const QString &b) { return a.size() > b.size(); };
        std::sort(insensitive.begin(), insensitive.end(), longestFirst);
        std::sort(sensitive.begin(), sensitive.end(), longestFirst);
        const auto build = [](const QStringList &values, QRegularExpression::PatternOptions options) {
            if (values.isEmpty())
                return QRegularExpression(QStringLiteral("(?!)"));
            QStringList alternatives;
            for (const QString &value : values)
                alternatives.append(literalAlternative(value));
            return QRegularExpression(QStringLiteral("(?<![\\p{L}\\p{N}_])(?:%1)(?![\\p{L}\\p{N}_])")
                                              .arg(alternatives.join(u'|')),
                                      options);
        };
        m_caseInsensitive = build(insensitive, QRegularExpression::CaseInsensitiveOption);
        // Name parts alone only as written with a capital: "Dana", not the "dana" of a word.
        m_caseSensitive = build(sensitive, QRegularExpression::NoPatternOption);
        m_patternsStale = false;
    }
    return caseSensitive ? m_caseSensitive : m_caseInsensitive;
}

void BuyerDataRedactor::countReplacement(PersonalKind kind)
{
    ++m_occurrences[kind];
}

// ---- learning ----

void BuyerDataRedactor::learnBuyer(const QString &name, const QString &email)
{
    if (!name.trimmed().isEmpty())
        learnName(name);
    if (!email.trimmed().isEmpty())
        placeholderFor(PersonalKind::Email, email);
}

void BuyerDataRedactor::learnFromText(const QString &text)
{
    for (auto it = introducedNamePattern().globalMatch(text); it.hasNext();)
        learnName(it.next().captured(1));
    for (auto it = emailPattern().globalMatch(text); it.hasNext();)
        placeholderFor(PersonalKind::Email, it.next().captured());
    for (auto it = userIdInText().globalMatch(text); it.hasNext();)
        m_userIdCandidates.append({it.next().captured(), false});
}

void BuyerDataRedactor::learnFromJson(const json &value)
{
    m_learning = true;
    (void)walkJson(value, false);
    m_learning = false;
}

void BuyerDataRedactor::learnFromJsonText(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    if (jsonNestingDepth(bytes.constBegin(), bytes.constEnd()) <= maxJsonNesting) {
        json parsed = json::parse(bytes.constBegin(), bytes.constEnd(), nullptr, false);
        if (!parsed.is_discarded()) {
            learnFromJson(parsed);
            return;
        }
    }
    learnFromText(text);
}

void BuyerDataRedactor::settleUserIds()
{
    // Decided once every name is known: an id seen before the name it spells still counts.
    const QList<std::pair<QString, bool>> candidates = std::exchange(m_userIdCandidates, {});
    for (const auto &[candidate, underKey] : candidates) {
        if (underKey)
            learnUserId(candidate, true);
    }
    for (const auto &[candidate, underKey] : candidates) {
        if (!underKey)
            learnUserId(candidate, false);
    }
}

// ---- JSON: one walk for learning and redacting, so both read keys the same way ----

std::optional<PersonalKind> BuyerDataRedactor::kindOfKey(const QString &key, bool personObject) const
{
    if (nameKeys().contains(key) || (key == u"name" && personObject))
        return PersonalKind::Name;
    if (emailKeys().contains(key))
        return PersonalKind::Email;
    if (phoneKeys().contains(key))
        return PersonalKind::Phone;
    if (addressKeys().contains(key))
        return PersonalKind::Address;
    if (cityKeys().contains(key))
        return PersonalKind::City;
    if (postalKeys().contains(key))
        return PersonalKind::PostalCode;
    if (userIdKeys().contains(key))
        return PersonalKind::UserId;
    if (birthKeys().contains(key))
        return PersonalKind::BirthDate;
    if (cardKeys().contains(key))
        return PersonalKind::PaymentCard;
    return std::nullopt;
}

json BuyerDataRedactor::walkJson(const json &value, bool aboutPerson)
{
    if (value.is_string()) {
        const QString text = fromUtf8String(value.get<std::string>());
        if (m_learning) {
            learnFromText(text);
            // JSON inside a string (τ² results are the tool's JSON as text): its keys teach
            // values, which redactText then finds as known values, keeping the text as written.
            const QString trimmed = text.trimmed();
            if (trimmed.startsWith(u'{') || trimmed.startsWith(u'[')) {
                const std::string &inner = value.get_ref<const std::string &>();
                if (jsonNestingDepth(inner.data(), inner.data() + inner.size()) <= maxJsonNesting) {
                    json parsedInner = json::parse(inner, nullptr, false);
                    if (!parsedInner.is_discarded())
                        walkJson(parsedInner, aboutPerson);
                }
            }
            return {};
        }
        return redactText(text).toStdString();
    }
    if (value.is_array()) {
        json out = json::array();
        for (const json &element : value) {
            json walked = walkJson(element, aboutPerson);
            if (!m_learning)
                out.push_back(std::move(walked));
        }
        return out;
    }
    if (!value.is_object())
        return value;

    bool personObject = aboutPerson;
    QString first;
    QString last;
    for (auto it = value.begin(); it != value.end(); ++it) {
        const QString key = normalizedKey(it.key());
        personObject = personObject || isPersonSignal(key);
        if (it->is_string() && (key == u"first_name" || key == u"given_name" || key == u"firstname"))
            first = fromUtf8String(it->get<std::string>());
        if (it->is_string() && (key == u"last_name" || key == u"family_name" || key == u"surname" || key == u"lastname"))
            last = fromUtf8String(it->get<std::string>());
    }
    if (!first.isEmpty() && !last.isEmpty())
        learnName(first + u' ' + last); // one person, so "Mei Patel" in text is one placeholder

    json out = json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
        const QString key = normalizedKey(it.key());
        const std::optional<PersonalKind> kind = kindOfKey(key, personObject);
        const bool scalar = it->is_string() || it->is_number();
        const QString text = it->is_string() ? fromUtf8String(it->get<std::string>())
                                             : scalar ? fromUtf8String(it->dump()) : QString();
        QString placeholder;
        if (kind && scalar) {
            if (*kind == PersonalKind::UserId) {
                if (m_learning)
                    m_userIdCandidates.append({text, true});
                else if (spellsKnownName(text))
                    placeholder = placeholderFor(*kind, text);
            } else {
                placeholder = placeholderFor(*kind, text);
            }
        }
        if (m_learning) {
            if (!kind || !scalar)
                walkJson(*it, personKeys().contains(key));
            continue;
        }
        const std::string outKey = redactText(fromUtf8String(it.key())).toStdString();
        if (!placeholder.isEmpty()) {
            countReplacement(m_kindOfPlaceholder.value(placeholder, *kind));
            out[outKey] = placeholder.toStdString();
        } else {
            out[outKey] = walkJson(*it, personKeys().contains(key));
        }
    }
    return out;
}

// ---- redacting ----

QString BuyerDataRedactor::redactText(const QString &text)
{
    if (text.isEmpty())
        return text;
    settleUserIds();
    learnFromText(text); // an e-mail or an introduced name seen only here
    settleUserIds();

    // Known values first, so a value a key named keeps its placeholder; patterns fill gaps.
    QList<Span> taken;
    const auto takeMatches = [&](const QRegularExpression &pattern, auto placeholderOfMatch) {
        for (auto it = pattern.globalMatch(text); it.hasNext();) {
            const QRegularExpressionMatch match = it.next();
            if (overlaps(taken, match.capturedStart(), match.capturedLength()))
                continue;
            const QString placeholder = placeholderOfMatch(match.captured());
            if (placeholder.isEmpty() || placeholder == match.captured())
                continue;
            taken.append({match.capturedStart(), match.capturedLength(), placeholder,
                          m_kindOfPlaceholder.value(placeholder, PersonalKind::Name)});
        }
    };
    takeMatches(emailPattern(), [this](const QString &m) { return placeholderFor(PersonalKind::Email, m); });
    takeMatches(knownValuesPattern(false), [this](const QString &m) { return placeholderOf(m).value_or(QString()); });
    takeMatches(knownValuesPattern(true), [this](const QString &m) { return m_nameParts.value(fold(m)); });
    takeMatches(phonePattern(), [this](const QString &m) { return placeholderFor(PersonalKind::Phone, m); });
    takeMatches(streetPattern(), [this](const QString &m) { return placeholderFor(PersonalKind::Address, m); });
    takeMatches(unitPattern(), [this](const QString &m) { return placeholderFor(PersonalKind::Address, m); });
    if (taken.isEmpty())
        return text;

    std::sort(taken.begin(), taken.end(), [](const Span &a, const Span &b) { return a.start < b.start; });
    QString out;
    out.reserve(text.size());
    qsizetype at = 0;
    for (const Span &span : std::as_const(taken)) {
        out.append(QStringView(text).mid(at, span.start - at));
        out.append(span.replacement);
        countReplacement(span.kind);
        at = span.start + span.length;
    }
    out.append(QStringView(text).mid(at));
    return out;
}

json BuyerDataRedactor::redactJson(const json &value)
{
    settleUserIds();
    return walkJson(value, false);
}

QString BuyerDataRedactor::redactJsonText(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    if (jsonNestingDepth(bytes.constBegin(), bytes.constEnd()) <= maxJsonNesting) {
        json parsed = json::parse(bytes.constBegin(), bytes.constEnd(), nullptr, false);
        if (!parsed.is_discarded())
            return fromUtf8String(redactJson(parsed).dump());
    }
    return redactText(text);
}

// ---- what was taken out ----

QList<RedactionCount> BuyerDataRedactor::counts() const
{
    QList<RedactionCount> result;
    for (PersonalKind kind : {PersonalKind::Name, PersonalKind::Email, PersonalKind::Phone, PersonalKind::Address,
                              PersonalKind::City, PersonalKind::PostalCode, PersonalKind::UserId,
                              PersonalKind::BirthDate, PersonalKind::PaymentCard}) {
        const qint64 occurrences = m_occurrences.value(kind);
        if (occurrences > 0)
            result.append({kind, m_next.value(kind), occurrences});
    }
    return result;
}

QString BuyerDataRedactor::summary() const
{
    QStringList parts;
    for (const RedactionCount &count : counts()) {
        parts.append(QStringLiteral("%1 (%2)")
                         .arg(personalKindLabel(count.kind, count.values),
                              count.occurrences == 1 ? QStringLiteral("1 place")
                                                     : QStringLiteral("%1 places").arg(count.occurrences)));
    }
    return parts.isEmpty() ? QStringLiteral("nothing") : parts.join(QStringLiteral(", "));
}

} // namespace verity
