#include "importcommand.h"

#include "domain/registrychoice.h"
#include "followimport.h"
#include "import/transcriptformat.h"
#include "import/transcriptimporter.h"
#include "registryoption.h"
#include "resolution/operatoridentity.h"
#include "store/storefactory.h"
#include "subcommandline.h"
#include "terminalprogress.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace verity {

namespace {

QJsonArray problemsJson(const QList<ImportProblem> &problems)
{
    QJsonArray array;
    for (const ImportProblem &problem : problems) {
        QJsonObject object{{QStringLiteral("reason"), problem.reason}};
        if (problem.place.line > 0)
            object.insert(QStringLiteral("line"), problem.place.line);
        else
            object.insert(QStringLiteral("byte"), problem.place.byteOffset);
        if (!problem.conversation.isEmpty())
            object.insert(QStringLiteral("conversation"), problem.conversation);
        array.append(object);
    }
    return array;
}

QJsonObject reportJson(const ImportReport &report)
{
    QJsonObject object{
            {QStringLiteral("path"), report.path},
            {QStringLiteral("format"), report.format},
            {QStringLiteral("registries"), QJsonArray::fromStringList(report.registries)},
            {QStringLiteral("lines"), report.linesRead},
            {QStringLiteral("bytes"), report.bytesRead},
            {QStringLiteral("conversations"), report.conversations},
            {QStringLiteral("tickets_opened"), report.ticketsOpened},
            {QStringLiteral("events_imported"), report.eventsImported},
            {QStringLiteral("events_already_present"), report.eventsUnchanged},
            {QStringLiteral("duplicate_effects"), report.repeats.duplicateEffects},
            {QStringLiteral("duplicate_cents"), report.repeats.duplicateCents},
            {QStringLiteral("retries_after_errors"), report.repeats.retries},
            {QStringLiteral("harmless_repeats"), report.repeats.harmless},
            {QStringLiteral("unsettled_repeats"), report.repeats.unsettled},
            {QStringLiteral("unclassified_tools"), QJsonArray::fromStringList(report.unclassifiedTools)},
            {QStringLiteral("notices"), problemsJson(report.notices)},
            {QStringLiteral("rejected"), problemsJson(report.rejected)}};
    if (!report.fatal.isEmpty())
        object.insert(QStringLiteral("error"), report.fatal);
    return object;
}

struct ImportRequest
{
    QString db;
    QString registry;
    QStringList files;
    bool json = false;
    bool follow = false;
    int graceSeconds = 120;
};

// Nothing when the import goes on; else the exit status, said already.
std::optional<int> readRequest(SubcommandLine &line, const QStringList &arguments, ImportRequest &request)
{
    QCommandLineParser &parser = line.parser();
    const QCommandLineOption db(QStringLiteral("db"), QStringLiteral("The database file."),
                                QStringLiteral("PATH"), defaultStoreLocation());
    const QCommandLineOption registryFile = registryOption();
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print the result as JSON."));
    const QCommandLineOption follow(
            QStringLiteral("follow"),
            QStringLiteral("Keep reading FILE as an agent runtime appends to it (and across log rotation): "
                           "Verity's events and OTLP trace exports, one a line, until Ctrl+C. A write whose "
                           "result has not come is in flight until --grace ends, then escalated."));
    const QCommandLineOption grace(QStringLiteral("grace"),
                                   QStringLiteral("With --follow: how long a write waits for its result."),
                                   QStringLiteral("SECONDS"), QStringLiteral("120"));
    parser.addOptions({db, registryFile, json, follow, grace});
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("Files to import."),
                                 QStringLiteral("FILE..."));
    if (std::optional<int> done = line.parse(
                arguments,
                QStringLiteral(
                        "Usage: verity import [--db PATH|URI] [--registry NAME|FILE] [--json] FILE...\n"
                        "       verity import [--db PATH|URI] [--registry NAME|FILE] --follow [--grace "
                        "SECONDS] FILE")))
        return done;
    request.files = parser.positionalArguments();
    if (request.files.isEmpty())
        return line.fail(QStringLiteral("name at least one FILE to import"));
    request.json = parser.isSet(json);
    request.follow = parser.isSet(follow);
    if (request.follow && (request.files.size() != 1 || request.json))
        return line.fail(QStringLiteral("--follow reads one FILE, and prints as it goes (no --json)"));
    bool validGrace = false;
    request.graceSeconds = parser.value(grace).toInt(&validGrace);
    if (!validGrace || request.graceSeconds < 0 || request.graceSeconds > 24 * 3600)
        return line.fail(QStringLiteral("--grace must be a whole number of seconds from 0 to 86400; got '%1'")
                                 .arg(parser.value(grace)));
    request.db = parser.value(db);
    request.registry = parser.value(registryFile);
    return std::nullopt;
}

// Each file in turn; 2: a file could not be read to its end, 1: some lines were rejected, 0: all
// imported.
int importFiles(Store &store, const RegistrySelection &registries, const ImportRequest &request,
                QTextStream &out)
{
    QTextStream err(stderr);
    TranscriptImporter importer(store, registries);
    TerminalProgress progress(err, !request.json);
    bool clean = true;
    bool unreadable = false;
    QJsonArray reports;
    for (const QString &file : request.files) {
        importer.setProgress([&progress, &file](qint64 done, qint64 total) {
            progress.show(file, done, total);
            return true;
        });
        const ImportReport report = importer.importFile(file);
        progress.clear();
        clean = clean && report.clean();
        unreadable = unreadable || !report.fatal.isEmpty();
        if (request.json) {
            reports.append(reportJson(report));
            continue;
        }
        for (const QString &message : report.noticeMessages())
            err << "notice: " << message << "\n";
        for (const QString &message : report.rejectionMessages())
            err << message << "\n";
        err.flush();
        out << report.summary() << "\n";
        out.flush();
    }
    if (request.json) {
        out << QJsonDocument(QJsonObject{{QStringLiteral("database"), store.location()},
                                         {QStringLiteral("ok"), clean},
                                         {QStringLiteral("files"), reports}})
                        .toJson();
    }
    return unreadable ? 2 : (clean ? 0 : 1);
}

} // namespace

int runImportCommand(const QStringList &arguments)
{
    SubcommandLine line(
            QStringLiteral("import"),
            QStringLiteral(
                    "Read transcripts of the agent's conversations into the database, one ticket per "
                    "conversation.\n"
                    "Formats: Verity's own JSONL, OpenAI Chat Completions and Responses, Anthropic "
                    "Messages,\n"
                    "OpenTelemetry (OTLP/JSON) traces, tau-bench and tau2-bench results; each file's format "
                    "is "
                    "told\n"
                    "from its content.\n"
                    "Exit status: 0 every line imported; 1 some line or conversation refused (the rest is "
                    "imported);\n"
                    "2 a file could not be read to its end, or the import could not run."));
    ImportRequest request;
    if (std::optional<int> done = readRequest(line, arguments, request))
        return *done;
    QTextStream &out = line.out();
    const auto cannotRun = [&](const QString &message) {
        if (request.json)
            out << QJsonDocument(
                           QJsonObject{{QStringLiteral("ok"), false}, {QStringLiteral("error"), message}})
                            .toJson();
        out.flush();
        return line.fail(message);
    };
    const Expected<RegistryChoice> choice = chooseRegistry({request.registry, defaultUserRegistryPath()});
    if (!choice)
        return cannotRun(choice.message());
    QTextStream err(stderr);
    for (const QString &warning : choice->warnings)
        err << "verity import: " << warning << "\n";
    err.flush();

    Expected<std::unique_ptr<Store>> store = openStore(request.db);
    if (!store)
        return cannotRun(store.message());
    if (Expected<void> allowed =
                requireRole(**store, TeamRole::Support, QStringLiteral("importing transcripts"));
        !allowed)
        return cannotRun(allowed.message());
    if (request.follow) {
        QTextStream followErr(stderr);
        return followImport(**store, choice->selection, request.files.first(),
                            qint64(request.graceSeconds) * 1000, out, followErr);
    }
    return importFiles(**store, choice->selection, request, out);
}

} // namespace verity
