#include "recordlookup.h"

#include "domain/jsontext.h"
#include "providerhttp.h"
#include "providerreply.h"
#include "systemnames.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace verity {

namespace {

constexpr int pageSize = 100;
constexpr int maxPages = 100; // 10,000 pickups or messages of one order is no order Verity knows

// "metadata.intent_key" or "id" of a record, as text; empty when it has no such
// text.
QString keyOf(const QJsonObject &record, const QString &key)
{
    const QString metadataPrefix = QStringLiteral("metadata.");
    const QJsonValue value = key.startsWith(metadataPrefix)
            ? record.value(QStringLiteral("metadata")).toObject().value(key.mid(metadataPrefix.size()))
            : record.value(key);
    return value.toString();
}

// "order=SU-88316, seller=kestrel-kitchen": the filter, for the words a person
// reads.
QString filterText(const RecordQuery &query)
{
    QStringList filter;
    for (const auto &[name, value] : query.filter)
        filter.append(name + u'=' + value);
    return filter.join(QStringLiteral(", "));
}

// The query, every name and value percent-encoded: QUrlQuery leaves '+' as it
// is, and a form-reading server takes a bare '+' for a space.
QUrlQuery encodedQuery(const QList<std::pair<QString, QString>> &items)
{
    QStringList pairs;
    for (const auto &[name, value] : items)
        pairs.append(
                QString::fromLatin1(QUrl::toPercentEncoding(name) + '=' + QUrl::toPercentEncoding(value)));
    return QUrlQuery(pairs.join(u'&'));
}

} // namespace

std::optional<FoundRecord> foundRecordFrom(const QJsonObject &object)
{
    const QString id = object.value(QStringLiteral("id")).toString();
    if (id.isEmpty())
        return std::nullopt;
    return FoundRecord{id, object.value(QStringLiteral("created")).toInteger() * 1000,
                       object.value(QStringLiteral("status")).toString(), object};
}

Expected<RecordQuery> recordQueryFor(const RecordLookupSpec &spec, const QString &argumentsJson,
                                     const TicketFacts &ticket, const QString &intentKey)
{
    if (intentKey.isEmpty())
        return makeError(QStringLiteral("nothing to look up: the call has no intent key"));
    const nlohmann::json arguments = nlohmann::json::parse(argumentsJson.toStdString(), nullptr, false);
    RecordQuery query{spec.system, spec.path, {}, spec.key, intentKey};
    for (const auto &[param, argument] : spec.filter) {
        const std::string name = argument.toStdString();
        QString value;
        if (arguments.is_object() && arguments.contains(name) && !arguments.at(name).is_null()) {
            const nlohmann::json &given = arguments.at(name);
            const std::optional<qint64> number = given.is_string() ? std::nullopt : wholeNumber(given);
            if (!given.is_string() && !number) {
                return makeError(
                        QStringLiteral("cannot look up at %1: the argument %2 is %3, not text")
                                .arg(systemWords(spec.system), argument, fromUtf8String(given.dump())));
            }
            value = given.is_string() ? fromUtf8String(given.get<std::string>()) : QString::number(*number);
        } else {
            value = ticket.value(argument);
        }
        if (value.isEmpty()) {
            return makeError(QStringLiteral("cannot look up at %1: %2 is missing "
                                            "from the call's arguments and "
                                            "the ticket")
                                     .arg(systemWords(spec.system), argument));
        }
        query.filter.append({param, value});
    }
    return query;
}

// Its answers are not held to the base URL's origin: a redirect not followed
// reads as a list it could not get.
RecordLookupOperation::RecordLookupOperation(ProviderSettings settings, RecordQuery query, QObject *parent)
    : ProviderRead(std::move(settings),
                   ReadTerms{.system = systemWords(query.system), .refuseRedirects = false}, nullptr, parent)
    , m_query(std::move(query))
{}

void RecordLookupOperation::start()
{
    if (m_started)
        return;
    m_started = true;
    if (m_query.intentKey.isEmpty() || m_query.path.isEmpty()) {
        finish(LookupVerdict::CouldNotTell,
               QStringLiteral("nothing to look up: the call has no %1")
                       .arg(m_query.intentKey.isEmpty() ? QStringLiteral("intent key")
                                                        : QStringLiteral("lookup path")));
        return;
    }
    askPage();
}

RecordLookupAnswer RecordLookupOperation::waitFor(RecordLookupOperation *operation)
{
    runToEnd(operation);
    return operation->answer();
}

void RecordLookupOperation::askPage()
{
    QList<std::pair<QString, QString>> items = m_query.filter;
    items.append({QStringLiteral("limit"), QString::number(pageSize)});
    if (!m_startingAfter.isEmpty())
        items.append({QStringLiteral("starting_after"), m_startingAfter});
    ask(providerhttp::endpoint(settings().baseUrl, m_query.path, encodedQuery(items)));
}

QString RecordLookupOperation::step(int attempt) const
{
    return QStringLiteral("Listing %1 at %2 for %3 (page %4, attempt %5 of %6)")
            .arg(m_query.path, systemWords(m_query.system), filterText(m_query), QString::number(m_page),
                 QString::number(attempt), QString::number(settings().maxLookupAttempts));
}

void RecordLookupOperation::readAnswer(const ReplyRead &read)
{
    const std::optional<bool> hasMore = readPage(read);
    if (!hasMore)
        return;
    if (!*hasMore) {
        decide();
        return;
    }
    if (m_page >= maxPages) {
        finish(LookupVerdict::CouldNotTell,
               QStringLiteral("the list at %1 has more than %2 records; stopped reading")
                       .arg(m_query.path)
                       .arg(m_read.size()));
        return;
    }
    m_startingAfter = m_read.last().id;
    ++m_page;
    askPage();
}

std::optional<bool> RecordLookupOperation::readPage(const ReplyRead &read)
{
    const auto cannotTell = [this](const QString &reason) {
        finish(LookupVerdict::CouldNotTell, reason);
        return std::optional<bool>();
    };
    if (const std::optional<QString> refused = refusedKey(read))
        return cannotTell(*refused);
    if (read.status < 200 || read.status >= 300) {
        // A wrong base URL or path must never read as "not performed".
        return cannotTell(QStringLiteral("%1 could not list %2 (%3); check its URL and the "
                                         "registry's lookup")
                                  .arg(systemWords(m_query.system), m_query.path,
                                       providerhttp::providerMessage(read.status, read.body)));
    }
    const QJsonObject list = QJsonDocument::fromJson(read.body).object();
    const QJsonValue data = list.value(QStringLiteral("data"));
    if (list.value(QStringLiteral("object")).toString() != u"list" || !data.isArray()) {
        return cannotTell(QStringLiteral("the answer of %1 (HTTP %2) is not a list; check its URL and the "
                                         "registry's lookup")
                                  .arg(systemWords(m_query.system))
                                  .arg(read.status));
    }
    const QJsonArray records = data.toArray();
    if (list.value(QStringLiteral("has_more")).toBool() && records.isEmpty())
        return cannotTell(QStringLiteral("%1 says more records follow but sent "
                                         "none; the list cannot be read to "
                                         "its end")
                                  .arg(systemWords(m_query.system)));
    for (const QJsonValue &value : records) {
        // Without an id there is no next page to ask for, nor a record to name as
        // evidence.
        std::optional<FoundRecord> record = foundRecordFrom(value.toObject());
        if (!record)
            return cannotTell(QStringLiteral("the list of %1 holds something that is not a record with an id")
                                      .arg(systemWords(m_query.system)));
        m_read.append(*record);
    }
    return list.value(QStringLiteral("has_more")).toBool();
}

void RecordLookupOperation::stop(const QString &reason)
{
    finish(LookupVerdict::CouldNotTell, reason);
}

void RecordLookupOperation::decide()
{
    // The list is newest first: read backwards, records made within the same
    // second stay oldest first through the sort by time.
    for (auto it = m_read.crbegin(); it != m_read.crend(); ++it) {
        if (keyOf(it->raw, m_query.key) == m_query.intentKey)
            m_answer.records.append(*it);
    }
    if (m_answer.records.isEmpty()) {
        const QString why = m_read.isEmpty()
                ? QStringLiteral("%1 of %2 holds no record for %3")
                          .arg(m_query.path, systemWords(m_query.system), filterText(m_query))
                : QStringLiteral("none of the %1 %2 at %3 of %4 for %5 carries the "
                                 "intent key in %6")
                          .arg(m_read.size())
                          .arg(m_read.size() == 1 ? QStringLiteral("record") : QStringLiteral("records"),
                               m_query.path, systemWords(m_query.system), filterText(m_query), m_query.key);
        finish(LookupVerdict::NotFound, why);
        return;
    }
    std::stable_sort(m_answer.records.begin(), m_answer.records.end(),
                     [](const FoundRecord &a, const FoundRecord &b) { return a.createdMs < b.createdMs; });
    QStringList found;
    for (const FoundRecord &record : std::as_const(m_answer.records)) {
        found.append(
                QStringLiteral("%1 (%2, created %3)")
                        .arg(record.id,
                             record.status.isEmpty() ? QStringLiteral("no status") : record.status.text(),
                             QDateTime::fromMSecsSinceEpoch(record.createdMs, Qt::UTC)
                                     .toString(Qt::ISODate)));
    }
    finish(LookupVerdict::Found,
           QStringLiteral("%1 has %2 with this intent key: %3")
                   .arg(systemWords(m_query.system),
                        m_answer.records.size() == 1
                                ? QStringLiteral("one record")
                                : QStringLiteral("%1 records").arg(m_answer.records.size()),
                        found.join(QStringLiteral("; "))));
}

void RecordLookupOperation::finish(LookupVerdict verdict, const QString &reason)
{
    if (!markFinished())
        return;
    m_answer.verdict = verdict;
    m_answer.reason = reason;
    m_answer.exchanges = exchanges();
    emit finished(m_answer);
}

} // namespace verity
