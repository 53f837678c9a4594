#include "consolecommand.h"

#include "demodatabase.h"
#include "itemmodels/transcriptmodel.h"
#include "registrychoice.h"
#include "mainwindow.h"
#include "store/sqlitestore.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QMessageBox>
#include <QTextStream>
#include <QTimer>

namespace verity {

namespace {

// The ticket of the March incident, the one a screenshot shows.
constexpr auto screenshotOrder = "SU-88421";

int saveScreenshot(MainWindow &window, Store &store, const QString &path)
{
    TicketQuery query;
    query.search = QString::fromLatin1(screenshotOrder);
    Expected<QList<TicketRow>> found = store.tickets(query, 0, 1);
    if (found && !found->isEmpty()) {
        window.openTicket(found->first().id);
        // Show the first write of the incident, the one that went unknown.
        for (int row = 0; row < window.transcript().rowCount(); ++row) {
            const TranscriptEntry *entry = window.transcript().entry(row);
            if (entry->isToolCall && entry->call.outcome == Outcome::Unknown) {
                window.openTicket(found->first().id, entry->call.callExtId);
                break;
            }
        }
    }
    window.resize(1600, 1000);
    window.show();
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
    if (!window.grab().save(path, "PNG")) {
        QTextStream(stderr) << "verity: cannot write the screenshot to " << path << "\n";
        return 2;
    }
    QTextStream(stdout) << "verity: saved a screenshot to " << path << "\n";
    return 0;
}

} // namespace

int runConsoleCommand(const QStringList &arguments)
{
    QTextStream err(stderr);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Verity: the console for the people around an AI support agent.\n\n"
                       "Subcommands:\n  verity import [--db PATH] [--json] FILE...   import transcripts"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption db(QStringLiteral("db"), QStringLiteral("The database file (default: %1).")
                                                          .arg(SqliteStore::defaultLocation()),
                                QStringLiteral("PATH"));
    const QCommandLineOption demo(QStringLiteral("demo"),
                                  QStringLiteral("Open a fresh database built from the demo data (the March incident)."));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Render the window with ticket SU-88421 open to FILE.png and exit."),
                                        QStringLiteral("FILE.png"));
    const QCommandLineOption registryFile(QStringLiteral("registry"),
                                          QStringLiteral("A tool registry file extending the built-in one."),
                                          QStringLiteral("FILE"));
    parser.addOptions({db, demo, screenshot, registryFile});
    parser.process(arguments);

    const RegistryChoice choice = chooseRegistry(parser.value(registryFile));
    for (const QString &warning : choice.warnings)
        err << "verity: " << warning << "\n";

    QString path = parser.value(db);
    if (parser.isSet(demo)) {
        Expected<QString> built = buildDemoDatabase(path, choice.registry);
        if (!built) {
            err << "verity: " << built.message() << "\n";
            return 2;
        }
        path = *built;
    } else if (path.isEmpty()) {
        path = SqliteStore::defaultLocation();
    }

    Expected<std::unique_ptr<SqliteStore>> store = SqliteStore::open(path);
    if (!store) {
        err << "verity: " << store.message() << "\n";
        if (!parser.isSet(screenshot))
            QMessageBox::critical(nullptr, QObject::tr("Verity"), store.message());
        return 2;
    }

    MainWindow window(**store, (*store)->location(), choice.registry);
    window.setWindowTitle(QObject::tr("Verity — %1").arg(QFileInfo(path).fileName()));
    if (parser.isSet(screenshot))
        return saveScreenshot(window, **store, parser.value(screenshot));
    window.show();
    if (!choice.warnings.isEmpty())
        QTimer::singleShot(0, &window, [&window, &choice] {
            QMessageBox::warning(&window, QObject::tr("Tool registry"), choice.warnings.join(QStringLiteral("\n\n")));
        });
    return QApplication::exec();
}

} // namespace verity
