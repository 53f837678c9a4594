#include "incidentexport.h"

#include "domain/registryselection.h"
#include "domain/sha256.h"
#include "import/nativewriter.h"
#include "import/transcriptimporter.h"
#include "store/sqlitefilelocks.h"
#include "store/storefactory.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QTemporaryFile>

#include <filesystem>

namespace verity {

using nlohmann::json;

namespace {

// The profile the ticket was read with, when it is a built-in one; otherwise (a user's file,
// which another Verity may not have) the built-in profile that gives its calls the classes
// they have.
NamedRegistry profileThatRead(const TicketDetail &ticket, const QList<TranscriptEntry> &transcript)
{
    if (builtInProfileNames().contains(ticket.registry)) {
        if (Expected<ToolRegistry> named = builtInProfile(ticket.registry))
            return NamedRegistry{ticket.registry, *named};
    }
    NamedRegistry best{QStringLiteral("default"), ToolRegistry::builtIn()};
    int bestScore = -1;
    for (const QString &name : builtInProfileNames()) {
        Expected<ToolRegistry> registry = builtInProfile(name);
        if (!registry)
            continue;
        int score = 0;
        for (const TranscriptEntry &entry : transcript) {
            if (entry.isToolCall && registry->classOf(entry.call.tool) == entry.call.toolClass)
                ++score;
        }
        if (score > bestScore) {
            best = NamedRegistry{name, *registry};
            bestScore = score;
        }
    }
    return best;
}

// Everything the export carries, shown to the redactor before any of it is redacted.
void learnIncident(BuyerDataRedactor &redactor, const TicketDetail &ticket,
                   const QList<TranscriptEntry> &transcript, const QList<TraceEvent> &traces,
                   const QList<TrainerNote> &notes)
{
    redactor.learnBuyer(ticket.order.customerName, ticket.order.customerEmail);
    redactor.learnFromText(ticket.row.subject);
    for (const TranscriptEntry &entry : transcript) {
        if (!entry.isToolCall) {
            redactor.learnFromText(entry.text);
            continue;
        }
        redactor.learnFromJsonText(entry.call.argumentsJson);
        if (entry.call.hasResult)
            redactor.learnFromJsonText(entry.call.rawResult);
    }
    for (const OrderItemRecord &item : ticket.order.items)
        redactor.learnFromText(item.title);
    for (const TraceEvent &trace : traces) {
        redactor.learnFromUrl(trace.http.url);
        for (const QString *text :
             {&trace.http.method, &trace.http.idempotencyKey, &trace.http.error, &trace.provider.event,
              &trace.provider.objectId, &trace.provider.idempotencyKey})
            redactor.learnFromText(*text);
    }
    for (const TrainerNote &note : notes)
        redactor.learnFromText(note.text);
}

// Ids that pair lines with each other (a call and its trace lines, an HTTP request and the
// provider record of the same idempotency key, a note and its step) must stay equal after
// redaction: one redacted form per id, whichever line it is met in first.
class IdentifierRedaction
{
public:
    explicit IdentifierRedaction(BuyerDataRedactor &redactor)
        : m_redactor(redactor)
    {}
    QString operator()(const QString &id)
    {
        if (id.isEmpty())
            return id;
        auto found = m_done.constFind(id);
        if (found == m_done.cend())
            found = m_done.insert(id, m_redactor.redactIdentifier(id));
        return *found;
    }

private:
    BuyerDataRedactor &m_redactor;
    QHash<QString, QString> m_done;
};

// Every text field of every trace line; the method too, though it is a verb, so no field is
// left out when one is added.
void redactTrace(TraceEvent &trace, BuyerDataRedactor &redactor, IdentifierRedaction &identifier)
{
    trace.callExtId = identifier(trace.callExtId);
    trace.http.method = redactor.redactText(trace.http.method);
    trace.http.url = redactor.redactUrl(trace.http.url);
    trace.http.idempotencyKey = identifier(trace.http.idempotencyKey);
    trace.http.error = redactor.redactText(trace.http.error);
    trace.provider.event = redactor.redactText(trace.provider.event);
    trace.provider.objectId = identifier(trace.provider.objectId);
    trace.provider.idempotencyKey = identifier(trace.provider.idempotencyKey);
}

void removeDatabaseFiles(const QString &path)
{
    for (const char *suffix : {"", "-wal", "-shm", "-journal"})
        QFile::remove(path + QLatin1String(suffix));
}

// Removes the half-made database unless the export got as far as renaming it into place.
class PartialFile
{
public:
    explicit PartialFile(QString path)
        : m_path(std::move(path))
    {}
    ~PartialFile()
    {
        if (!m_kept)
            removeDatabaseFiles(m_path);
    }
    PartialFile(const PartialFile &) = delete;
    PartialFile &operator=(const PartialFile &) = delete;
    const QString &path() const { return m_path; }
    void keep() { m_kept = true; }

private:
    QString m_path;
    bool m_kept = false;
};

Expected<void> checkTarget(const QString &path)
{
    const QFileInfo target(path);
    const QFileInfo folder(target.absolutePath());
    if (path.trimmed().isEmpty())
        return makeError(QStringLiteral("no file name given for the incident export"));
    // An older export of the same name may be replaced, unless it is open here; any other database
    // never is.
    if (Expected<void> notOpen = refuseToOverwriteOpenDatabase(path); !notOpen)
        return notOpen;
    if (Expected<void> free = refuseToOverwriteDatabase(path); !free && !openIncidentExport(path))
        return free;
    if (!folder.exists() || !folder.isDir())
        return makeError(QStringLiteral("%1: cannot export there: the folder %2 does not exist")
                                 .arg(path, folder.filePath()));
    if (!folder.isWritable())
        return makeError(QStringLiteral("%1: cannot export there: the folder %2 is not writable")
                                 .arg(path, folder.filePath()));
    if (target.isDir())
        return makeError(QStringLiteral("%1: cannot export there: it is a folder").arg(path));
    return {};
}

QString partialPathFor(const QString &path)
{
    const QFileInfo target(path);
    for (;;) {
        const QString candidate =
                QStringLiteral("%1/.%2.partial-%3")
                        .arg(target.absolutePath(), target.fileName())
                        .arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'));
        if (!QFileInfo::exists(candidate))
            return candidate;
    }
}

QString countsJson(const QList<RedactionCount> &counts)
{
    json object = json::object();
    for (const RedactionCount &count : counts)
        object[personalKindId(count.kind).toStdString()] =
                json{{"values", count.values}, {"places", count.occurrences}};
    return QString::fromStdString(object.dump());
}

// Imports the redacted incident into the new database at `partialPath`; returns its ticket id.
Expected<qint64> buildExport(Store &store, const TicketDetail &ticket, const QList<json> &events,
                             const NamedRegistry &profile, const QString &partialPath)
{
    // The ticket is stored as read, so it keeps its source format and its profile, and a ticket
    // that names no order or seller (which a native ticket_opened line cannot say) is kept too.
    NewTicket opened;
    opened.extId = ticket.row.extId;
    opened.openedAt = ticket.row.openedAt;
    opened.subject = ticket.row.subject;
    opened.order = ticket.order;
    if (!ticket.sellerId.isEmpty())
        opened.seller = SellerRecord{ticket.sellerId, ticket.row.sellerName, ticket.sellerBalanceCents,
                                     ticket.sellerBalanceAsOf};
    opened.fingerprint = QString::fromLatin1(sha256Hex(nativeLine(nativeTicketOpened(ticket))));
    opened.sourceFormat =
            ticket.row.sourceFormat.isEmpty() ? QStringLiteral("native") : ticket.row.sourceFormat;
    opened.registry = profile.name;
    if (Expected<void> begun = store.begin(); !begun)
        return begun.error();
    Expected<TicketRef> inserted = store.insertTicket(opened);
    if (!inserted) {
        store.rollback();
        return inserted.error();
    }
    if (Expected<void> committed = store.commit(); !committed)
        return committed.error();

    QTemporaryFile lines(QDir::tempPath() + QStringLiteral("/verity-incident-XXXXXX.jsonl"));
    if (!lines.open())
        return makeError(
                QStringLiteral("cannot write a temporary file for the export: %1").arg(lines.errorString()));
    for (const json &event : events) {
        lines.write(nativeLine(event));
        lines.write("\n");
    }
    if (!lines.flush())
        return makeError(
                QStringLiteral("cannot write a temporary file for the export: %1").arg(lines.errorString()));

    TranscriptImporter importer(store, RegistrySelection::forced(profile));
    const ImportReport report = importer.importFile(lines.fileName());
    if (!report.fatal.isEmpty())
        return makeError(QStringLiteral("%1: %2").arg(partialPath, report.fatal));
    // Every line must come back as it was written; anything less would be a different incident.
    if (!report.rejected.isEmpty())
        return makeError(QStringLiteral("the incident could not be read back whole: %1")
                                 .arg(report.rejected.first().reason));
    if (report.eventsImported != events.size())
        return makeError(QStringLiteral("the incident could not be read back whole: %1 of %2 events stored")
                                 .arg(report.eventsImported)
                                 .arg(events.size()));
    return inserted->id;
}

} // namespace

Expected<IncidentExportSummary> exportIncident(ReplayStore &source, qint64 ticketId, const QString &path,
                                               qint64 exportedAt)
{
    if (Expected<void> target = checkTarget(path); !target)
        return target.error();

    Expected<std::optional<TicketDetail>> found = source.ticket(ticketId);
    if (!found)
        return found.error();
    if (!*found)
        return makeError(
                QStringLiteral("%1: there is no ticket %2 to export").arg(source.location()).arg(ticketId));
    TicketDetail ticket = **found;
    Expected<QList<TranscriptEntry>> transcript = source.transcript(ticketId);
    if (!transcript)
        return transcript.error();
    Expected<QList<TraceEvent>> traces = source.traceEvents(ticketId);
    if (!traces)
        return traces.error();
    Expected<QList<TrainerNote>> notes = source.trainerNotes(ticketId);
    if (!notes)
        return notes.error();

    // ---- redact everything through one redactor ----
    BuyerDataRedactor redactor;
    learnIncident(redactor, ticket, *transcript, *traces, *notes);
    ticket.order.customerName = redactor.redactText(ticket.order.customerName);
    ticket.order.customerEmail = redactor.redactText(ticket.order.customerEmail);
    ticket.row.subject = redactor.redactText(ticket.row.subject);
    for (OrderItemRecord &item : ticket.order.items)
        item.title = redactor.redactText(item.title);
    IdentifierRedaction identifier(redactor);
    for (TranscriptEntry &entry : *transcript) {
        if (!entry.isToolCall) {
            entry.text = redactor.redactText(entry.text);
            continue;
        }
        entry.call.callExtId = identifier(entry.call.callExtId);
        entry.call.argumentsJson = redactor.redactJsonText(entry.call.argumentsJson);
        if (entry.call.hasResult)
            entry.call.rawResult = redactor.redactJsonText(entry.call.rawResult);
    }
    for (TraceEvent &trace : *traces)
        redactTrace(trace, redactor, identifier);
    for (TrainerNote &note : *notes) {
        note.stepKey = identifier(note.stepKey); // "call:<call id>": the call id as redacted above
        note.text = redactor.redactText(note.text);
    }

    const NamedRegistry profile = profileThatRead(ticket, *transcript);
    const QList<json> events = nativeTicketEvents(ticket.row.extId, *transcript, *traces);

    // ---- build the file beside the target, then put it in place ----
    PartialFile partial(partialPathFor(path));
    IncidentExportSummary summary;
    {
        Expected<std::unique_ptr<Store>> opened = openStore(partial.path());
        if (!opened)
            return makeError(QStringLiteral("%1: cannot write the export: %2").arg(path, opened.message()));
        Store &store = **opened;
        Expected<qint64> exported = buildExport(store, ticket, events, profile, partial.path());
        if (!exported)
            return makeError(QStringLiteral("%1: %2").arg(path, exported.message()));

        summary.path = QFileInfo(path).absoluteFilePath();
        summary.ticketExtId = ticket.row.extId;
        summary.registry = profile.name;
        for (const TranscriptEntry &entry : std::as_const(*transcript))
            ++(entry.isToolCall ? summary.toolCalls : summary.messages);
        summary.traceEvents = traces->size();
        summary.trainerNotes = notes->size();
        summary.redactions = redactor.counts();
        summary.redactionSummary = redactor.summary();

        const qint64 when = exportedAt > 0 ? exportedAt : QDateTime::currentMSecsSinceEpoch();
        const QList<std::pair<QString, QString>> info{
                {QStringLiteral("kind"), QString::fromLatin1(incidentExportKind)},
                {QStringLiteral("format_version"), QString::number(incidentExportFormatVersion)},
                {QStringLiteral("source_ticket"), ticket.row.extId},
                {QStringLiteral("source_format"), ticket.row.sourceFormat},
                {QStringLiteral("registry"), profile.name},
                {QStringLiteral("exported_at"), nativeTimestamp(when)},
                {QStringLiteral("redactions"), summary.redactionSummary},
                {QStringLiteral("redaction_counts"), countsJson(summary.redactions)},
        };
        if (Expected<void> begun = store.begin(); !begun)
            return makeError(QStringLiteral("%1: %2").arg(path, begun.message()));
        for (const TrainerNote &note : std::as_const(*notes)) {
            if (Expected<void> saved = store.saveTrainerNote(*exported, note); !saved) {
                store.rollback();
                return makeError(QStringLiteral("%1: %2").arg(path, saved.message()));
            }
        }
        for (const auto &[key, value] : info) {
            if (Expected<void> set = store.setFileInfo(key, value); !set) {
                store.rollback();
                return makeError(QStringLiteral("%1: %2").arg(path, set.message()));
            }
        }
        if (Expected<void> committed = store.commit(); !committed)
            return makeError(QStringLiteral("%1: %2").arg(path, committed.message()));

        // One file, no -wal or -shm beside it: the file is copied and mailed on its own, and a
        // read-only reader of a WAL database would have to create side files next to it.
        if (Expected<void> single = store.makeSelfContained(); !single)
            return makeError(QStringLiteral("%1: cannot make the export a single file: %2")
                                     .arg(path, single.message()));
    } // the store closes here, before the file moves

    std::error_code error;
    std::filesystem::rename(std::filesystem::path(partial.path().toStdU16String()),
                            std::filesystem::path(QFileInfo(path).absoluteFilePath().toStdU16String()),
                            error);
    if (error)
        return makeError(QStringLiteral("%1: cannot put the export in place: %2")
                                 .arg(path, QString::fromLocal8Bit(error.message().c_str())));
    partial.keep();
    return summary;
}

Expected<OpenedIncidentExport> openIncidentExport(const QString &path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return makeError(QStringLiteral("%1: no such file").arg(path));
    if (info.isDir())
        return makeError(QStringLiteral("%1 is a folder, not a Verity incident export").arg(path));
    Expected<StoreFileHeader> header = readStoreFileHeader(path);
    if (!header)
        return header.error();
    if (!header->isDatabase)
        return makeError(QStringLiteral("%1 is not a Verity incident export: it is not a Verity file at all")
                                 .arg(path));
    const int version = header->schemaVersion;
    if (header->headerCurrent) {
        if (version == 0)
            return makeError(
                    QStringLiteral("%1 is not a Verity incident export: it is a database of another program")
                            .arg(path));
        if (version > currentStoreSchemaVersion())
            return makeError(
                    QStringLiteral(
                            "%1 was made by a newer Verity (schema version %2; this Verity reads up to %3); "
                            "use a newer Verity to open it")
                            .arg(path)
                            .arg(version)
                            .arg(currentStoreSchemaVersion()));
        if (version < 7) // before version 7 no file said what it was for
            return makeError(QStringLiteral("%1 is a Verity database, not an incident export").arg(path));
    }

    Expected<std::unique_ptr<Store>> store = openStoreReadOnly(path);
    if (!store)
        return store.error();
    Expected<QHash<QString, QString>> fileInfo = (*store)->fileInfo();
    if (!fileInfo)
        return makeError(
                QStringLiteral("%1: cannot read what the file is: %2").arg(path, fileInfo.message()));
    if (fileInfo->value(QStringLiteral("kind")) != QLatin1String(incidentExportKind))
        return makeError(QStringLiteral("%1 is a Verity database, not an incident export").arg(path));
    bool numeric = false;
    const int format = fileInfo->value(QStringLiteral("format_version")).toInt(&numeric);
    if (!numeric || format < 1)
        return makeError(
                QStringLiteral("%1: the incident export does not say its format version; the file is damaged")
                        .arg(path));
    if (format > incidentExportFormatVersion)
        return makeError(
                QStringLiteral(
                        "%1 is an incident export of format version %2, newer than this Verity reads (%3); "
                        "use a newer Verity to open it")
                        .arg(path)
                        .arg(format)
                        .arg(incidentExportFormatVersion));
    const QString ticket = fileInfo->value(QStringLiteral("source_ticket"));
    Expected<std::optional<qint64>> ticketId = (*store)->ticketIdByExtId(ticket);
    if (!ticketId)
        return makeError(QStringLiteral("%1: cannot read the incident: %2").arg(path, ticketId.message()));
    if (!*ticketId)
        return makeError(
                QStringLiteral("%1: the export names ticket \"%2\" but does not hold it; the file is damaged")
                        .arg(path, ticket));
    OpenedIncidentExport opened;
    opened.store = std::move(*store);
    opened.ticketId = **ticketId;
    opened.fileInfo = *fileInfo;
    return opened;
}

} // namespace verity
