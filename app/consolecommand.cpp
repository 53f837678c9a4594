#include "consolecommand.h"

#include "demodatabase.h"
#include "desktopnotifier.h"
#include "domain/registrychoice.h"
#include "itemmodels/transcriptmodel.h"
#include "mainwindow.h"
#include "registryoption.h"
#include "replay/incidentexport.h"
#include "serverwaitdialog.h"
#include "store/sqlitefilelocks.h"
#include "store/storefactory.h"
#include "store/storelocation.h"
#include "trainingmenu.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QStatusBar>
#include <QTextStream>
#include <QTimer>

namespace verity {

namespace {

// What a title bar has room for: a file's name, or a team database's name, user and server
// ("verity · ana@db.example:5432"; a server on this machine's socket reads "this machine").
QString windowName(const QString &location)
{
    if (isFileLocation(location))
        return QFileInfo(location).fileName();
    const Expected<PostgresTarget> target = parsePostgresLocation(location);
    if (!target)
        return storeDisplayName(location);
    const QString host = target->host.isEmpty() || target->host.startsWith(u'/') ? QObject::tr("this machine")
                                                                                 : target->host;
    QString server = target->port > 0 ? QStringLiteral("%1:%2").arg(host).arg(target->port) : host;
    if (!target->user.isEmpty())
        server = target->user + u'@' + server;
    return QStringLiteral("%1 · %2").arg(
            target->database.isEmpty() ? QObject::tr("team database") : target->database, server);
}

// The ticket of the March incident, the one a screenshot shows unless told otherwise.
constexpr auto incidentOrder = "SU-88421";

// Opens the ticket named by its id or its order id, at what matters most in it (its duplicate
// effect, else its unknown, else a repeat), as the ticket view chooses.
bool openNamedTicket(MainWindow &window, Store &store, const QString &name)
{
    TicketQuery query;
    query.search = name;
    Expected<QList<TicketRow>> found = store.tickets(query, 0, 20);
    if (!found)
        return false;
    for (const TicketRow &row : std::as_const(*found)) {
        if (row.extId.compare(name, Qt::CaseInsensitive) != 0
            && row.orderId.compare(name, Qt::CaseInsensitive) != 0)
            continue;
        window.openTicket(row.id);
        return true;
    }
    return false;
}

int saveScreenshot(QWidget &window, const QString &path)
{
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
    if (Expected<void> free = refuseToOverwriteDatabase(path); !free) {
        QTextStream(stderr) << "verity: " << free.message() << "\n";
        return 2;
    }
    if (!window.grab().save(path, "PNG")) {
        QTextStream(stderr) << "verity: cannot write the screenshot to " << path << "\n";
        return 2;
    }
    QTextStream(stdout) << "verity: saved a screenshot to " << path << "\n";
    return 0;
}

const QString description = QStringLiteral(
        "Verity: the console for the people around an AI customer-support agent. It opens a window with\n"
        "every ticket, every tool call the agent made, and what came of each one.\n"
        "\n"
        "Subcommands, for scripts and scheduled jobs (none opens a window).\n"
        "\"verity SUBCOMMAND --help\" lists the options of each:\n"
        "  import      Read transcripts of the agent's conversations into the database, or follow one.\n"
        "  collect     Receive the agent's telemetry (OpenTelemetry traces, Verity events) as it "
        "happens.\n"
        "  guard       Stand between an agent and its MCP tools, holding the retry of an unknown "
        "write.\n"
        "  lookup      Ask the system each write went to what happened to calls whose outcome is "
        "unknown.\n"
        "  resolve     Settle one escalation by a check a person made where no system can be asked.\n"
        "  audit       Check the audit log for changes made behind its back, or print it.\n"
        "  claim       Claim an escalation before acting on it, or the next one nobody holds.\n"
        "  db          Set up a team's PostgreSQL database, grant its roles, or copy a desk's history "
        "in.\n"
        "  reconcile   Compare the refunds in the database with the provider's, for a period.\n"
        "  sandbox     Run a practice payment provider on this computer.\n"
        "  simulate    Run made-up refund tickets against the practice provider and count what went "
        "wrong.");

struct ConsoleRequest
{
    std::optional<QString> db;
    bool demo = false;
    std::optional<QString> screenshot;
    QString registry;
    std::optional<QString> ticket;
    std::optional<QString> incident;
    bool replay = false;
};

// Nothing when the window opens; else the exit status, said already.
std::optional<int> readRequest(const QStringList &arguments, ConsoleRequest &request)
{
    QTextStream err(stderr);
    QCommandLineParser parser;
    parser.setApplicationDescription(description);
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption db(
            QStringLiteral("db"),
            QStringLiteral("The database file (default: %1), or a team's PostgreSQL database "
                           "(postgresql://[user@]host[:port]/dbname).")
                    .arg(defaultStoreLocation()),
            QStringLiteral("PATH"));
    const QCommandLineOption demo(
            QStringLiteral("demo"),
            QStringLiteral("Open a fresh database built from the demo data (the March incident)."));
    const QCommandLineOption screenshot(
            QStringLiteral("screenshot"),
            QStringLiteral("Save a picture of the window to FILE.png, then exit (with "
                           "--demo, ticket SU-88421 is open in it)."),
            QStringLiteral("FILE.png"));
    const QCommandLineOption registryFile = registryOption();
    const QCommandLineOption ticket(QStringLiteral("ticket"),
                                    QStringLiteral("Open this ticket (its id or its order id) at start."),
                                    QStringLiteral("ID"));
    const QCommandLineOption incident(
            QStringLiteral("incident"),
            QStringLiteral("Open an incident file saved with Training > Export incident…, "
                           "read-only."),
            QStringLiteral("FILE"));
    const QCommandLineOption replay(
            QStringLiteral("replay"),
            QStringLiteral("Also open the ticket's replay (with --screenshot, the picture is "
                           "of the replay)."));
    parser.addOptions({db, demo, screenshot, registryFile, ticket, incident, replay});
    // A mistyped subcommand ("verity improt FILE") must not open the window as if nothing were wrong.
    if (!parser.parse(arguments)) {
        err << "verity: " << parser.errorText() << "\nverity --help lists the options and subcommands.\n";
        return 2;
    }
    if (!parser.positionalArguments().isEmpty()) {
        err << "verity: \"" << parser.positionalArguments().constFirst()
            << "\" is not a subcommand or an option; verity --help lists them.\n";
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        // Qt's usage line is the program as it was typed, and leaves out the subcommands.
        QString help = parser.helpText();
        help.replace(0, help.indexOf(u'\n'),
                     QStringLiteral("Usage: verity [options]\n       verity SUBCOMMAND [options]"));
        QTextStream(stdout) << help;
        return 0;
    }
    parser.process(arguments); // --version and --help-all print and exit here
    const auto given = [&parser](const QCommandLineOption &option) {
        return parser.isSet(option) ? std::optional<QString>(parser.value(option)) : std::nullopt;
    };
    request.db = given(db);
    request.demo = parser.isSet(demo);
    request.screenshot = given(screenshot);
    request.registry = parser.value(registryFile);
    request.ticket = given(ticket);
    request.incident = given(incident);
    request.replay = parser.isSet(replay);
    if (request.incident && (request.demo || request.db)) {
        err << "verity: --incident opens an export on its own; leave out --demo and --db\n";
        return 2;
    }
    return std::nullopt;
}

// The database the window shows, as opened.
struct ConsoleDatabase
{
    QString path;
    std::unique_ptr<Store> store;
    std::optional<OpenedIncidentExport> exported; // its store moved to `store`
    bool created = false; // a new, empty file
    Expected<void> writable;
};

// Says why it cannot (on stderr, and in a message box unless a screenshot is asked for).
int cannotOpen(const ConsoleRequest &request, const QString &message)
{
    QTextStream(stderr) << "verity: " << message << "\n";
    if (!request.screenshot)
        QMessageBox::critical(nullptr, QObject::tr("Verity"), message);
    return 2;
}

// Nothing when it is open; else the exit status, said already.
std::optional<int> openDatabase(const ConsoleRequest &request, const RegistryChoice &choice,
                                ConsoleDatabase &database)
{
    if (request.incident) {
        Expected<OpenedIncidentExport> opened = openIncidentExport(*request.incident);
        if (!opened)
            return cannotOpen(request, opened.message());
        database.exported = std::move(*opened);
        database.path = *request.incident;
        database.store = std::move(database.exported->store);
        return std::nullopt;
    }
    QString path = request.db.value_or(QString());
    if (request.demo) {
        Expected<QString> built = buildDemoDatabase(path, choice.selection);
        if (!built) {
            QTextStream(stderr) << "verity: " << built.message() << "\n";
            return 2;
        }
        path = *built;
    } else if (path.isEmpty()) {
        path = defaultStoreLocation();
    }
    database.path = path;
    // A mistyped --db must not pass silently as an empty console.
    database.created = !request.demo && isFileLocation(path) && !QFileInfo::exists(path);
    // A database this user cannot write (the file, or the folder SQLite keeps its journal in) is
    // read as it is, never changed: the window shows it and refuses everything that writes.
    database.writable = database.created ? Expected<void>() : checkWritable(path);
    Expected<std::unique_ptr<Store>> store =
            database.writable.ok() ? openStore(path) : openStoreReadOnly(path);
    // A team's server that is down or restarting: wait for it with the person, not exit.
    if (const QString away = !store && !request.screenshot ? unreachableServer(path) : QString();
        !away.isEmpty()) {
        QTextStream(stderr) << "verity: " << store.message()
                            << "\nverity: waiting for the server to answer\n";
        ServerWaitDialog wait(
                storeDisplayName(path), away, [path] { return unreachableServer(path); },
                [path] { return openStore(path); });
        if (wait.exec() != QDialog::Accepted)
            return 2;
        store = wait.takeStore();
    }
    if (!store)
        return cannotOpen(request, store.message());
    database.store = std::move(*store);
    return std::nullopt;
}

QString windowTitle(const ConsoleDatabase &database)
{
    if (database.exported)
        return QObject::tr("Verity — %1 (read-only incident export)")
                .arg(QFileInfo(database.path).fileName());
    if (database.writable.ok())
        return QObject::tr("Verity — %1").arg(windowName(database.path));
    return QObject::tr("Verity — %1 (read-only)").arg(windowName(database.path));
}

// A new, empty file, or one this user may only read: said in the window and on stderr.
void tellWhatWasOpened(MainWindow &window, const ConsoleDatabase &database)
{
    QTextStream err(stderr);
    if (database.created) {
        const QString text = QObject::tr("No database was at %1: a new, empty one was created there. Import "
                                         "transcripts with File > Import, or open another with --db.")
                                     .arg(QDir::toNativeSeparators(database.path));
        err << "verity: " << text << "\n";
        window.statusBar()->showMessage(text);
    }
    if (!database.writable) {
        const QString text =
                QObject::tr("%1 is open read-only: %2.")
                        .arg(QDir::toNativeSeparators(database.path), database.writable.message());
        const QString detail =
                QObject::tr("Everything can be read; nothing can be imported, looked up, settled or "
                            "noted here.");
        err << "verity: " << text << ' ' << detail << "\n";
        window.showReadOnlyNotice(text, detail);
    }
}

// The ticket the window opens at: the one asked for, the export's, or the incident's.
QString firstTicket(const ConsoleRequest &request, const ConsoleDatabase &database)
{
    QString name = request.ticket.value_or(QString());
    if (database.exported && name.isEmpty())
        name = database.exported->fileInfo.value(QStringLiteral("source_ticket"));
    if (name.isEmpty() && (request.demo || request.screenshot))
        name = QString::fromLatin1(incidentOrder);
    return name;
}

} // namespace

int runConsoleCommand(const QStringList &arguments)
{
    ConsoleRequest request;
    if (std::optional<int> done = readRequest(arguments, request))
        return *done;
    QTextStream err(stderr);
    const RegistrySource registrySource{request.registry, defaultUserRegistryPath()};
    const Expected<RegistryChoice> choice = chooseRegistry(registrySource);
    if (!choice) {
        err << "verity: " << choice.message() << "\n";
        return 2;
    }
    for (const QString &warning : choice->warnings)
        err << "verity: " << warning << "\n";
    err.flush();
    ConsoleDatabase database;
    if (std::optional<int> done = openDatabase(request, *choice, database))
        return *done;

    MainWindow window(*database.store, database.exported ? QString() : database.store->location(),
                      registrySource,
                      database.exported                ? MainWindow::IncidentExport
                              : database.writable.ok() ? MainWindow::ReadWrite
                                                       : MainWindow::ReadOnlyDatabase);
    window.setTitle(windowTitle(database));
    if (!request.screenshot)
        window.notifyDesktop(new DesktopNotifier(QApplication::windowIcon(), &window));
    // Shown first, so the queue has read its first page and can select the ticket's row.
    if (request.screenshot)
        window.resize(1600, 1200);
    window.show();
    tellWhatWasOpened(window, database);
    QApplication::processEvents();
    if (const QString ticketName = firstTicket(request, database);
        !ticketName.isEmpty() && !openNamedTicket(window, *database.store, ticketName) && request.ticket)
        err << "verity: no ticket or order \"" << ticketName << "\" in " << database.path << "\n";
    err.flush();
    if (request.replay) {
        QWidget *replayWindow = window.training()->replay(window.transcript().ticketId());
        if (!replayWindow)
            return 2;
        if (request.screenshot)
            return saveScreenshot(*replayWindow, *request.screenshot);
    }
    if (request.screenshot)
        return saveScreenshot(window, *request.screenshot);
    if (!choice->warnings.isEmpty())
        QTimer::singleShot(0, &window, [&window, &choice] {
            QMessageBox::warning(&window, QObject::tr("Tool registry"),
                                 choice->warnings.join(QStringLiteral("\n\n")));
        });
    return QApplication::exec();
}

} // namespace verity
