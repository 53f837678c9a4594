#include "redaction.h"

#include "domain/jsontext.h"
#include "redactionrules.h"

#include <algorithm>
#include <utility>

namespace verity {

using nlohmann::json;
using namespace redaction;

namespace {

QString fold(const QString &value)
{
    return value.simplified().toCaseFolded().replace(u'\u2019', u'\'');
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

QString digitsOf(const QString &value)
{
    QString digits;
    for (QChar c : value) {
        if (c.isDigit())
            digits.append(c);
    }
    return digits;
}

QString capitalized(const QString &part)
{
    return part.isEmpty() ? part : part.left(1).toUpper() + part.mid(1);
}

QRegularExpression alternation(QStringList values, const QString &boundary,
                               QRegularExpression::PatternOptions options)
{
    if (values.isEmpty())
        return QRegularExpression(QStringLiteral("(?!)"));
    // Longest first, so "Dana Whitfield" wins over "Dana".
    std::sort(values.begin(), values.end(),
              [](const QString &a, const QString &b) { return a.size() > b.size(); });
    values.removeDuplicates();
    QStringList alternatives;
    for (const QString &value : std::as_const(values))
        alternatives.append(literalPattern(value));
    return QRegularExpression(QStringLiteral("(?<!%1)(?:%2)(?!%1)").arg(boundary, alternatives.join(u'|')),
                              options);
}

struct Span
{
    qsizetype start = 0;
    qsizetype length = 0;
    QString replacement;
    PersonalKind kind = PersonalKind::Name;
    bool counted = false; // a URL: its parts were counted as they were redacted
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

BuyerDataRedactor::BuyerDataRedactor() = default;

// ---- values and their placeholders ----

QString BuyerDataRedactor::learnName(const QString &fullName)
{
    QString name = fullName.simplified();
    while (!name.isEmpty() && !name.back().isLetter())
        name.chop(1);
    // "Mr Sean O'Brien" is Sean O'Brien: "Mr Smith" is somebody else.
    while (name.contains(u' ') && isNameTitle(fold(name.section(u' ', 0, 0))))
        name = name.section(u' ', 1);
    if (name.size() < 2 || !name.front().isLetter())
        return {};
    const QString key = fold(name);
    if (auto known = m_placeholders.constFind(key); known != m_placeholders.cend())
        return *known;

    QStringList parts;
    const auto addPart = [&parts](QString part) {
        while (!part.isEmpty() && !part.back().isLetter())
            part.chop(1);
        while (!part.isEmpty() && !part.front().isLetter())
            part.remove(0, 1);
        if (part.size() >= 2 && !isNameTitle(fold(part)) && !parts.contains(part))
            parts.append(part);
    };
    for (const QString &part : name.split(u' ', Qt::SkipEmptyParts)) {
        addPart(part);
        // "Smith-Jones": "Ms Jones" is the same person.
        if (part.contains(u'-')) {
            for (const QString &half : part.split(u'-', Qt::SkipEmptyParts))
                addPart(half);
        }
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
    if (name.contains(u' '))
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
    if (m_kindOfPlaceholder.contains(text))
        return text;
    const QString key =
            kind == PersonalKind::Phone && !phoneKey(text).isEmpty() ? phoneKey(text) : fold(text);
    if (auto known = m_placeholders.constFind(key); known != m_placeholders.cend())
        return *known;
    if (auto known = m_placeholders.constFind(fold(text)); known != m_placeholders.cend())
        return *known;
    if (auto part = m_nameParts.constFind(fold(text)); part != m_nameParts.cend())
        return *part;

    const int number = ++m_next[kind];
    QString placeholder;
    switch (kind) {
    case PersonalKind::Name:
        break;
    case PersonalKind::Email:
        placeholder = QStringLiteral("buyer%1@example.invalid").arg(number);
        break;
    case PersonalKind::Phone:
        placeholder = QStringLiteral("[phone %1]").arg(number);
        break;
    case PersonalKind::Address:
        placeholder = QStringLiteral("[address %1]").arg(number);
        break;
    case PersonalKind::City:
        placeholder = QStringLiteral("[city %1]").arg(number);
        break;
    case PersonalKind::PostalCode:
        placeholder = QStringLiteral("[zip %1]").arg(number);
        break;
    case PersonalKind::UserId:
        placeholder = QStringLiteral("[user id %1]").arg(number);
        break;
    case PersonalKind::BirthDate:
        placeholder = QStringLiteral("[birth date %1]").arg(number);
        break;
    case PersonalKind::PaymentCard:
        placeholder = QStringLiteral("[card %1]").arg(number);
        break;
    }
    m_placeholders.insert(key, placeholder);
    m_kindOfPlaceholder.insert(placeholder, kind);
    // Found under a key, the value is taken out of text too; three digits or fewer would
    // take amounts and counts with them.
    const bool digitsOnly = digitsOf(text).size() == text.size();
    if (!digitsOnly || text.size() >= 4) {
        (kind == PersonalKind::Email ? m_emails : m_literals).append(text);
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
    if (const QString digits = digitsOf(value); digits.size() >= 13 && digits.size() <= 19) {
        if (auto known = m_placeholders.constFind(digits); known != m_placeholders.cend())
            return *known; // a card number, grouped differently
    }
    return std::nullopt;
}

bool BuyerDataRedactor::spellsKnownName(const QString &userId) const
{
    const QString folded = fold(userId);
    for (auto it = m_nameParts.cbegin(); it != m_nameParts.cend(); ++it) {
        const QString &part = it.key();
        if (part.size() >= 4
                    ? folded.contains(part)
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

const BuyerDataRedactor::KnownPatterns &BuyerDataRedactor::knownPatterns()
{
    if (m_patternsStale) {
        // Name parts in any case, unless short or an everyday word: those only capitalised.
        QStringList anyCase;
        QStringList capital;
        const auto everyday = [](const QString &folded) { return folded.size() < 3 || isCommonWord(folded); };
        for (auto it = m_nameParts.cbegin(); it != m_nameParts.cend(); ++it)
            (everyday(it.key()) ? capital : anyCase)
                    .append(everyday(it.key()) ? capitalized(it.key()) : it.key());
        // A full name made of everyday words only ("Will Grant") is capitalised-only too.
        QStringList literals;
        for (const QString &literal : std::as_const(m_literals)) {
            QStringList words = fold(literal).split(u' ');
            if (words.size() < 2 || !std::all_of(words.cbegin(), words.cend(), everyday)
                || !m_nameParts.contains(words.constFirst())) {
                literals.append(literal);
                continue;
            }
            for (QString &word : words)
                word = capitalized(word);
            capital.append(words.join(u' '));
        }
        // '_' separates words too: "re_Dana_Whitfield", "dana_whitfield" in a path.
        const QString boundary = QStringLiteral("[\\p{L}\\p{N}]");
        const auto insensitive = QRegularExpression::CaseInsensitiveOption;
        m_known.emails = alternation(m_emails, boundary, insensitive);
        m_known.literals = alternation(literals, boundary, insensitive);
        m_known.partsAnyCase = alternation(anyCase, boundary, insensitive);
        m_known.partsCapital = alternation(capital, boundary, QRegularExpression::NoPatternOption);
        m_patternsStale = false;
    }
    return m_known;
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
    for (auto it = emailPattern().globalMatch(text); it.hasNext();) {
        const QString email = percentDecoded(it.next().captured());
        // "refund-dana.w@example.com" in a key is the known address with a prefix, no new one.
        const bool prefixed = std::any_of(m_emails.cbegin(), m_emails.cend(), [&email](const QString &known) {
            return email.size() > known.size() && email.endsWith(known, Qt::CaseInsensitive)
                    && !email.at(email.size() - known.size() - 1).isLetterOrNumber();
        });
        if (!prefixed)
            placeholderFor(PersonalKind::Email, email);
    }
    for (auto it = userIdInText().globalMatch(text); it.hasNext();)
        m_userIdCandidates.append({it.next().captured(), false});
    for (auto it = urlInText().globalMatch(text); it.hasNext();)
        learnFromUrl(it.next().captured());
}

void BuyerDataRedactor::learnFromUrl(const QString &url)
{
    const bool was = std::exchange(m_learning, true);
    (void)walkUrl(url);
    m_learning = was;
}

void BuyerDataRedactor::learnFromJson(const json &value)
{
    const bool was = std::exchange(m_learning, true);
    (void)walkJson(value, false);
    m_learning = was;
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
        const QString key = normalizedKey(fromUtf8String(it.key()));
        personObject = personObject || isPersonSignal(key);
        if (it->is_string() && isFirstNameKey(key))
            first = fromUtf8String(it->get<std::string>());
        if (it->is_string() && isLastNameKey(key))
            last = fromUtf8String(it->get<std::string>());
    }
    if (!first.isEmpty() && !last.isEmpty())
        learnName(first + u' ' + last); // one person, so "Mei Patel" in text is one placeholder

    json out = json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
        const QString key = normalizedKey(fromUtf8String(it.key()));
        const std::optional<PersonalKind> kind = kindOfKey(key, personObject);
        const bool scalar = it->is_string() || it->is_number();
        const QString text = it->is_string() ? fromUtf8String(it->get<std::string>())
                : scalar                     ? fromUtf8String(it->dump())
                                             : QString();
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
                walkJson(*it, isPersonKey(key));
            continue;
        }
        const std::string outKey = redactText(fromUtf8String(it.key())).toStdString();
        if (!placeholder.isEmpty()) {
            countReplacement(m_kindOfPlaceholder.value(placeholder, *kind));
            out[outKey] = placeholder.toStdString();
        } else {
            out[outKey] = walkJson(*it, isPersonKey(key));
        }
    }
    return out;
}

// ---- URLs: each part decoded, read like a JSON value, and re-encoded only when it changed ----

QString BuyerDataRedactor::walkUrl(const QString &url)
{
    const qsizetype fragmentAt = url.indexOf(u'#');
    const QString beforeFragment = fragmentAt < 0 ? url : url.left(fragmentAt);
    const qsizetype queryAt = beforeFragment.indexOf(u'?');
    QStringList segments = (queryAt < 0 ? beforeFragment : beforeFragment.left(queryAt)).split(u'/');
    for (QString &segment : segments)
        segment = walkUrlComponent(segment, std::nullopt, false);
    QString out = segments.join(u'/');
    if (queryAt >= 0) {
        QStringList pairs = beforeFragment.mid(queryAt + 1).split(u'&');
        // The query is one object: a `name` in it is a person's when another key is about one.
        bool personQuery = false;
        for (const QString &pair : std::as_const(pairs))
            personQuery = personQuery
                    || isPersonSignal(normalizedKey(percentDecoded(pair.section(u'=', 0, 0), true)));
        for (QString &pair : pairs) {
            const qsizetype equals = pair.indexOf(u'=');
            if (equals < 0) {
                pair = walkUrlComponent(pair, std::nullopt, true);
                continue;
            }
            const QString key = pair.left(equals);
            const std::optional<PersonalKind> kind =
                    kindOfKey(normalizedKey(percentDecoded(key, true)), personQuery);
            pair = walkUrlComponent(key, std::nullopt, true) + u'='
                    + walkUrlComponent(pair.mid(equals + 1), kind, true);
        }
        out += u'?' + pairs.join(u'&');
    }
    if (fragmentAt >= 0)
        out += u'#' + walkUrlComponent(url.mid(fragmentAt + 1), std::nullopt, true);
    return out;
}

QString BuyerDataRedactor::walkUrlComponent(const QString &raw, std::optional<PersonalKind> kind, bool query)
{
    if (raw.isEmpty())
        return raw;
    const QString decoded = percentDecoded(raw, query);
    if (m_learning) {
        if (kind == PersonalKind::UserId)
            m_userIdCandidates.append({decoded, true});
        else if (kind)
            placeholderFor(*kind, decoded);
        else
            learnFromText(decoded);
        return raw;
    }
    QString redacted;
    if (kind && (*kind != PersonalKind::UserId || spellsKnownName(decoded))) {
        const QString placeholder = placeholderFor(*kind, decoded);
        if (!placeholder.isEmpty() && placeholder != decoded.simplified()) {
            countReplacement(m_kindOfPlaceholder.value(placeholder, *kind));
            redacted = placeholder;
        }
    }
    if (redacted.isEmpty())
        redacted = redact(decoded, true);
    if (redacted == decoded)
        return raw; // byte-identical, however it was encoded
    return percentEncoded(redacted, query && raw.contains(u'+'));
}

// ---- redacting ----

QString BuyerDataRedactor::redactText(const QString &text)
{
    return redact(text, false);
}

QString BuyerDataRedactor::redactIdentifier(const QString &text)
{
    return redact(text, true);
}

QString BuyerDataRedactor::redactUrl(const QString &url)
{
    if (url.isEmpty())
        return url;
    learnFromUrl(url);
    settleUserIds();
    return walkUrl(url);
}

QString BuyerDataRedactor::redact(const QString &text, bool identifier)
{
    if (text.isEmpty())
        return text;
    settleUserIds();
    learnFromText(text); // an e-mail or an introduced name seen only here
    settleUserIds();

    QList<Span> taken;
    const auto take = [&](const QRegularExpression &pattern, int group, auto placeholderOfMatch) {
        for (auto it = pattern.globalMatch(text); it.hasNext();) {
            const QRegularExpressionMatch match = it.next();
            const qsizetype start = match.capturedStart(group);
            const qsizetype length = match.capturedLength(group);
            if (start < 0 || length == 0 || overlaps(taken, start, length))
                continue;
            const QString found = match.captured(group);
            const QString placeholder = placeholderOfMatch(found);
            if (placeholder.isEmpty() || placeholder == found)
                continue;
            taken.append(
                    {start, length, placeholder, m_kindOfPlaceholder.value(placeholder, PersonalKind::Name)});
        }
    };
    // URLs in text first: their parts are decoded and redacted (and counted) one by one.
    if (!identifier) {
        for (auto it = urlInText().globalMatch(text); it.hasNext();) {
            const QRegularExpressionMatch match = it.next();
            const QString redacted = walkUrl(match.captured());
            if (redacted != match.captured())
                taken.append(
                        {match.capturedStart(), match.capturedLength(), redacted, PersonalKind::Name, true});
        }
    }
    // Known values before patterns, so a value a key named keeps its placeholder; a known
    // e-mail before the e-mail pattern, which would take "refund-" into the address.
    const KnownPatterns &known = knownPatterns();
    const auto knownValue = [this](const QString &m) {
        for (const QString &form : {m, percentDecoded(m), percentDecoded(m, true)}) {
            if (std::optional<QString> placeholder = placeholderOf(form))
                return *placeholder;
        }
        return QString();
    };
    const auto namePart = [this](const QString &m) {
        return m_nameParts.value(fold(percentDecoded(m, true)));
    };
    const auto as = [this](PersonalKind kind) {
        return [this, kind](const QString &m) { return placeholderFor(kind, percentDecoded(m)); };
    };
    take(known.emails, 0, knownValue);
    take(emailPattern(), 0, as(PersonalKind::Email));
    take(known.literals, 0, knownValue);
    take(known.partsAnyCase, 0, namePart);
    take(known.partsCapital, 0, knownValue);
    take(cardPattern(), 0, [this](const QString &m) {
        const QString digits = digitsOf(m);
        return digits.size() >= 13 && digits.size() <= 19 && luhnValid(digits)
                ? placeholderFor(PersonalKind::PaymentCard, digits)
                : QString();
    });
    take(phonePattern(), 0, as(PersonalKind::Phone));
    take(trunkPhonePattern(), 0, [this](const QString &m) {
        const int digits = digitCount(m);
        return digits == 10 || digits == 11 ? placeholderFor(PersonalKind::Phone, m) : QString();
    });
    take(shortPhonePattern(), 0, as(PersonalKind::Phone));
    take(streetPattern(), 0, as(PersonalKind::Address));
    take(unitPattern(), 0, as(PersonalKind::Address));
    take(ukPostcodePattern(), 2, as(PersonalKind::PostalCode));
    take(ukPostcodePattern(), 1, as(PersonalKind::City));
    take(zipCityPattern(), 1, as(PersonalKind::PostalCode));
    take(zipCityPattern(), 2, as(PersonalKind::City));
    if (taken.isEmpty())
        return text;

    std::sort(taken.begin(), taken.end(), [](const Span &a, const Span &b) { return a.start < b.start; });
    QString out;
    out.reserve(text.size());
    qsizetype at = 0;
    for (const Span &span : std::as_const(taken)) {
        out.append(QStringView(text).mid(at, span.start - at));
        out.append(span.replacement);
        if (!span.counted)
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
    for (PersonalKind kind : {PersonalKind::Name, PersonalKind::Email, PersonalKind::Phone,
                              PersonalKind::Address, PersonalKind::City, PersonalKind::PostalCode,
                              PersonalKind::UserId, PersonalKind::BirthDate, PersonalKind::PaymentCard}) {
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
        parts.append(QStringLiteral("%1 (%2)").arg(
                personalKindLabel(count.kind, count.values),
                count.occurrences == 1 ? QStringLiteral("1 place")
                                       : QStringLiteral("%1 places").arg(count.occurrences)));
    }
    return parts.isEmpty() ? QStringLiteral("nothing") : parts.join(QStringLiteral(", "));
}

} // namespace verity
