#include "importcommand.h"

#include "import/nativeimporter.h"
#include "registrychoice.h"
#include "store/storefactory.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace verity {

namespace {

QJsonObject reportJson(const ImportReport &report)
{
    QJsonArray rejected;
    for (const RejectedLine &line : report.rejected)
        rejected.append(QJsonObject{{QStringLiteral("line"), line.line}, {QStringLiteral("reason"), line.reason}});
    QJsonObject object{{QStringLiteral("path"), report.path},
                       {QStringLiteral("lines"), report.linesRead},
                       {QStringLiteral("tickets_opened"), report.ticketsOpened},
                       {QStringLiteral("events_imported"), report.eventsImported},
                       {QStringLiteral("events_already_present"), report.eventsUnchanged},
                       {QStringLiteral("rejected"), rejected}};
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
    parser.setApplicationDescription(QStringLiteral("Import transcripts in Verity's native JSONL format."));
    parser.addHelpOption();
    const QCommandLineOption db(QStringLiteral("db"), QStringLiteral("The database file."), QStringLiteral("PATH"),
                                defaultStoreLocation());
    const QCommandLineOption registryFile(QStringLiteral("registry"),
                                          QStringLiteral("A tool registry file extending the built-in one."),
                                          QStringLiteral("FILE"));
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print the result as JSON."));
    parser.addOptions({db, registryFile, json});
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("Files to import."), QStringLiteral("FILE..."));
    if (!parser.parse(arguments)) {
        err << "verity import: " << parser.errorText() << "\n";
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        out << parser.helpText();
        return 0;
    }
    const QStringList files = parser.positionalArguments();
    if (files.isEmpty()) {
        err << "verity import: name at least one FILE to import\n";
        return 2;
    }

    auto cannotRun = [&](const QString &message) {
        if (parser.isSet(json))
            out << QJsonDocument(QJsonObject{{QStringLiteral("ok"), false}, {QStringLiteral("error"), message}}).toJson();
        err << "verity import: " << message << "\n";
        return 2;
    };
    const RegistryChoice choice = chooseRegistry(parser.value(registryFile));
    for (const QString &warning : choice.warnings)
        err << "verity import: " << warning << "\n";
    if (!choice.error.isEmpty())
        return cannotRun(choice.error);

    Expected<std::unique_ptr<Store>> store = openStore(parser.value(db));
    if (!store)
        return cannotRun(store.message());
    NativeImporter importer(**store, choice.registry);
    bool clean = true;
    bool unreadable = false;
    QJsonArray reports;
    for (const QString &file : files) {
        const ImportReport report = importer.importFile(file);
        clean = clean && report.clean();
        unreadable = unreadable || !report.fatal.isEmpty();
        if (parser.isSet(json)) {
            reports.append(reportJson(report));
            continue;
        }
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
