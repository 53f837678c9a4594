#include "importcommand.h"

#include "domain/registrychoice.h"
#include "followimport.h"
#include "import/transcriptformat.h"
#include "import/transcriptimporter.h"
#include "registryoption.h"
#include "resolution/operatoridentity.h"
#include "store/storefactory.h"
#include "terminalprogress.h"

#include <QCommandLineParser>
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

} // namespace

int runImportCommand(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "Read transcripts of the agent's conversations into the database, one ticket per conversation.\n"
            "Formats: Verity's own JSONL, OpenAI Chat Completions and Responses, Anthropic Messages,\n"
            "OpenTelemetry (OTLP/JSON) traces, tau-bench and tau2-bench results; each file's format is told\n"
            "from its content.\n"
            "Exit status: 0 every line imported; 1 some line or conversation refused (the rest is "
            "imported);\n"
            "2 a file could not be read to its end, or the import could not run."));
    parser.addHelpOption();
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
    if (!parser.parse(arguments)) {
        err << "verity import: " << parser.errorText() << "\n";
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        // Qt's usage line names only the program, which without "import" would open the window.
        QString help = parser.helpText();
        help.replace(0, help.indexOf(u'\n'),
                     QStringLiteral(
                             "Usage: verity import [--db PATH|URI] [--registry NAME|FILE] [--json] FILE...\n"
                             "       verity import [--db PATH|URI] [--registry NAME|FILE] --follow [--grace "
                             "SECONDS] FILE"));
        out << help;
        return 0;
    }
    const QStringList files = parser.positionalArguments();
    if (files.isEmpty()) {
        err << "verity import: name at least one FILE to import\n";
        return 2;
    }
    bool validGrace = false;
    const int graceSeconds = parser.value(grace).toInt(&validGrace);
    if (parser.isSet(follow) && (files.size() != 1 || parser.isSet(json))) {
        err << "verity import: --follow reads one FILE, and prints as it goes (no --json)\n";
        return 2;
    }
    if (!validGrace || graceSeconds < 0 || graceSeconds > 24 * 3600) {
        err << "verity import: --grace must be a whole number of seconds from 0 to 86400; got '"
            << parser.value(grace) << "'\n";
        return 2;
    }

    auto cannotRun = [&](const QString &message) {
        if (parser.isSet(json))
            out << QJsonDocument(
                           QJsonObject{{QStringLiteral("ok"), false}, {QStringLiteral("error"), message}})
                            .toJson();
        err << "verity import: " << message << "\n";
        return 2;
    };
    const Expected<RegistryChoice> choice =
            chooseRegistry({parser.value(registryFile), defaultUserRegistryPath()});
    if (!choice)
        return cannotRun(choice.message());
    for (const QString &warning : choice->warnings)
        err << "verity import: " << warning << "\n";

    Expected<std::unique_ptr<Store>> store = openStore(parser.value(db));
    if (!store)
        return cannotRun(store.message());
    if (Expected<void> allowed =
                requireRole(**store, TeamRole::Support, QStringLiteral("importing transcripts"));
        !allowed)
        return cannotRun(allowed.message());
    if (parser.isSet(follow))
        return followImport(**store, choice->selection, files.first(), qint64(graceSeconds) * 1000, out, err);
    TranscriptImporter importer(**store, choice->selection);
    TerminalProgress progress(err, !parser.isSet(json));
    bool clean = true;
    bool unreadable = false;
    QJsonArray reports;
    for (const QString &file : files) {
        importer.setProgress([&progress, &file](qint64 done, qint64 total) {
            progress.show(file, done, total);
            return true;
        });
        const ImportReport report = importer.importFile(file);
        progress.clear();
        clean = clean && report.clean();
        unreadable = unreadable || !report.fatal.isEmpty();
        if (parser.isSet(json)) {
            reports.append(reportJson(report));
            continue;
        }
        for (const QString &message : report.noticeMessages())
            err << "notice: " << message << "\n";
        for (const QString &message : report.rejectionMessages())
            err << message << "\n";
        out << report.summary() << "\n";
    }
    if (parser.isSet(json)) {
        out << QJsonDocument(QJsonObject{{QStringLiteral("database"), (*store)->location()},
                                         {QStringLiteral("ok"), clean},
                                         {QStringLiteral("files"), reports}})
                        .toJson();
    }
    // 2: a file could not be read to its end; 1: some lines were rejected; 0: all imported.
    return unreadable ? 2 : (clean ? 0 : 1);
}

} // namespace verity
