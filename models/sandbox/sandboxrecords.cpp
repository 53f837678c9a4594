// The courier's pickups and the messaging service's messages: their kinds and their
// endpoints, which check parameters first (a refusal there is not stored for an idempotency
// key) and then execute inside the transaction SandboxApi::post opened, as refunds do.

#include "sandboxrecords.h"

#include "sandboxapi.h"

#include <QDateTime>
#include <QLocale>

namespace verity {

using namespace Qt::Literals::StringLiterals;

namespace {

// The courier books the morning of the next working day after the booking, and names the
// window as couriers do: "Fri 3 Apr, 08:00-12:00".
QString collectionWindow(qint64 createdSeconds)
{
    QDate day = QDateTime::fromSecsSinceEpoch(createdSeconds, Qt::UTC).date().addDays(1);
    while (day.dayOfWeek() > 5)
        day = day.addDays(1);
    return QLocale(QLocale::English).toString(day, u"ddd d MMM"_s) + u", 08:00-12:00"_s;
}

} // namespace

const SandboxRecordKind &sandboxPickups()
{
    static const SandboxRecordKind kind{u"pickup"_s,
                                        "/v1/pickups"_L1,
                                        u"pu_"_s,
                                        u"courier"_s,
                                        {{u"order"_s, true}, {u"item"_s, false}},
                                        {{u"status"_s, u"scheduled"_s}}};
    return kind;
}

const SandboxRecordKind &sandboxMessages()
{
    static const SandboxRecordKind kind{u"message"_s,
                                        "/v1/messages"_L1,
                                        u"msg_"_s,
                                        u"messaging service"_s,
                                        {{u"order"_s, true}, {u"seller"_s, false}, {u"text"_s, true, 5000}},
                                        {}};
    return kind;
}

const SandboxRecordKind *sandboxRecordKindAt(QStringView path)
{
    for (const SandboxRecordKind *kind : {&sandboxPickups(), &sandboxMessages()}) {
        if (path == kind->path)
            return kind;
    }
    return nullptr;
}

const SandboxRecordKind *sandboxRecordKindOf(QStringView object)
{
    for (const SandboxRecordKind *kind : {&sandboxPickups(), &sandboxMessages()}) {
        if (object == kind->object)
            return kind;
    }
    return nullptr;
}

SandboxRecord newSandboxRecord(const SandboxRecordKind &kind, QString id,
                               const QMap<QString, QString> &params, qint64 created, SandboxMetadata metadata)
{
    SandboxRecord record;
    record.id = std::move(id);
    record.kind = kind.object;
    record.order = params.value(u"order"_s);
    for (const SandboxRecordParam &param : kind.params) {
        if (param.name != u"order" && params.contains(param.name))
            record.fields.insert(param.name, params.value(param.name));
    }
    for (const auto &[name, value] : kind.fixed)
        record.fields.insert(name, value);
    if (kind.object == sandboxPickups().object)
        record.fields.insert(u"window"_s, collectionWindow(created));
    record.created = created;
    record.metadata = std::move(metadata);
    return record;
}

SandboxApi::Result SandboxApi::createRecord(const SandboxRecordKind &kind, const SandboxForm &form)
{
    QStringList known;
    for (const SandboxRecordParam &param : kind.params)
        known.append(param.name);
    const QString unknown = form.firstUnknown(known);
    if (!unknown.isEmpty())
        return refused(unknownParameter(unknown));
    QMap<QString, QString> params;
    for (const SandboxRecordParam &param : kind.params) {
        const QString value = form.value(param.name);
        if (!form.has(param.name) && !param.required)
            continue;
        if (value.isEmpty()) {
            return refused(SandboxError::invalid(param.name,
                                                 form.has(param.name)
                                                         ? u"%1 must not be empty."_s.arg(param.name)
                                                         : u"Missing required param: %1."_s.arg(param.name),
                                                 u"parameter_missing"_s));
        }
        if (value.size() > param.maxLength) {
            return refused(
                    SandboxError::invalid(param.name,
                                          u"%1 can have at most %2 characters; got %3."_s.arg(param.name)
                                                  .arg(param.maxLength)
                                                  .arg(value.size())));
        }
        params.insert(param.name, value);
    }
    const SandboxMetadata metadata = form.metadata();
    if (std::optional<SandboxError> error = checkMetadata(metadata))
        return refused(*error);

    const SandboxRecord record =
            newSandboxRecord(kind, randomSandboxId(kind.idPrefix), params, nowSeconds(), metadata);
    Expected<bool> inserted = m_state.insertRecord(record);
    if (!inserted)
        return refused(internalError(inserted.message()));
    return ok(recordBody(record), true);
}

SandboxApi::Result SandboxApi::retrieveRecord(const SandboxRecordKind &kind, const QString &id)
{
    Expected<std::optional<SandboxRecord>> record = m_state.record(kind.object, id);
    if (!record)
        return refused(internalError(record.message()));
    if (!*record) {
        SandboxError error = SandboxError::missing(u"id"_s, u"No such %1: '%2'"_s.arg(kind.object, id));
        error.status = 404;
        return refused(error);
    }
    return ok(recordBody(**record));
}

SandboxApi::Result SandboxApi::listRecords(const SandboxRecordKind &kind, const SandboxForm &query)
{
    // An order the system has no record of is no error: its list is empty.
    const std::variant<SandboxListQuery, SandboxError> parsed = parseListQuery(query, {u"order"_s});
    if (const auto *error = std::get_if<SandboxError>(&parsed))
        return refused(*error);
    const SandboxListQuery &list = std::get<SandboxListQuery>(parsed);
    const QString order = query.value(u"order"_s);
    if (query.has(u"order"_s) && order.isEmpty()) // an empty filter would list every order's
        return refused(SandboxError::invalid(u"order"_s, u"order must not be empty."_s));
    Expected<std::optional<SandboxPage<SandboxRecord>>> page =
            m_state.records(kind.object, order, list.limit, list.startingAfter, list.created);
    if (!page)
        return refused(internalError(page.message()));
    if (!*page) {
        return refused(SandboxError::missing(u"starting_after"_s,
                                             u"No such %1: '%2'"_s.arg(kind.object, list.startingAfter)));
    }
    return ok(listBody((*page)->items, &writeRecord, (*page)->hasMore, kind.path));
}

} // namespace verity
