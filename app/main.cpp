// verity: the console window, or a subcommand for scripts and scheduled jobs.

#include "auditcommand.h"
#include "claimcommand.h"
#include "collectcommand.h"
#include "consolecommand.h"
#include "dbcommand.h"
#include "guardcommand.h"
#include "importcommand.h"
#include "lookupcommand.h"
#include "reconcilecommand.h"
#include "resolvecommand.h"
#include "sandboxcommand.h"
#include "simulatecommand.h"

#include <QApplication>
#include <QCoreApplication>
#include <QGuiApplication>
#include <QIcon>

#include <cstdio>
#include <cstring>
#include <vector>

#ifdef Q_OS_UNIX
#include <unistd.h>
#endif

namespace {

void describe(QCoreApplication &app)
{
    app.setOrganizationName(QStringLiteral("Verity"));
    app.setApplicationName(QStringLiteral("verity"));
    app.setApplicationVersion(QStringLiteral(VERITY_VERSION));
}

bool paintsPdf(int argc, char *argv[])
{
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--") == 0)
            return false;
        if (std::strcmp(argv[i], "--pdf") == 0 || std::strncmp(argv[i], "--pdf=", 6) == 0)
            return true;
    }
    return false;
}

} // namespace

int main(int argc, char *argv[])
{
    // Subcommands run without a display, so they must not start a GUI application.
    const std::pair<const char *, int (*)(const QStringList &)> subcommands[] = {
            {"import", verity::runImportCommand},       {"sandbox", verity::runSandboxCommand},
            {"audit", verity::runAuditCommand},         {"lookup", verity::runLookupCommand},
            {"resolve", verity::runResolveCommand},     {"simulate", verity::runSimulateCommand},
            {"reconcile", verity::runReconcileCommand}, {"db", verity::runDbCommand},
            {"claim", verity::runClaimCommand},         {"collect", verity::runCollectCommand},
            {"guard", verity::runGuardCommand},
    };
    // A reconciliation that writes a PDF paints text, which needs fonts, so a QGuiApplication:
    // on Qt's offscreen platform, asked for by its own -platform argument, as it shows no window
    // and must run where there is no display (a scheduled job). Without --pdf it is like the rest.
    if (argc > 1 && std::strcmp(argv[1], "reconcile") == 0 && paintsPdf(argc, argv)) {
#ifdef Q_OS_UNIX
        // A scheduled job often runs without a session: Qt asks for the session's runtime folder
        // and would warn on every run; a private one of our own stands in for it.
        if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR"))
            qputenv("XDG_RUNTIME_DIR", QByteArray("/tmp/verity-runtime-") + QByteArray::number(getuid()));
#endif
        std::vector<char *> arguments(argv, argv + argc);
        char platformOption[] = "-platform";
        char offscreen[] = "offscreen";
        arguments.insert(arguments.begin() + 1, {platformOption, offscreen});
        int count = int(arguments.size());
        QGuiApplication app(count, arguments.data());
        describe(app);
        QStringList given = app.arguments();
        given.removeAt(1);
        return verity::runReconcileCommand(given);
    }
    for (const auto &[name, run] : subcommands) {
        if (argc > 1 && std::strcmp(argv[1], name) == 0) {
            QCoreApplication app(argc, argv);
            describe(app);
            QStringList arguments = app.arguments();
            arguments.removeAt(1);
            return run(arguments);
        }
    }

    // A screenshot renders offscreen, and help or version need no display at all: neither may
    // fail for want of one.
    bool wantsScreenshot = false;
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (std::strcmp(arg, "--help") == 0 || std::strcmp(arg, "-h") == 0
            || std::strcmp(arg, "--version") == 0 || std::strcmp(arg, "-v") == 0
            || std::strcmp(arg, "--help-all") == 0) {
            QCoreApplication app(argc, argv);
            describe(app);
            return verity::runConsoleCommand(app.arguments());
        }
        if (std::strncmp(arg, "--screenshot", 12) == 0)
            wantsScreenshot = true;
    }
    if (wantsScreenshot && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
#ifdef Q_OS_LINUX
    // Without a display Qt would abort with a plugin error; say what to do instead.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY")
        && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
        std::fputs(
                "verity: no display (neither DISPLAY nor WAYLAND_DISPLAY is set), so the window cannot "
                "open.\n"
                "Save a picture of it with --screenshot FILE.png, or use a subcommand (verity --help lists "
                "them).\n",
                stderr);
        return 2;
    }
#endif

    QApplication app(argc, argv);
    describe(app);
    QGuiApplication::setDesktopFileName(QStringLiteral("dev.verity.Console"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/verity/icons/dev.verity.Console.svg")));
    return verity::runConsoleCommand(app.arguments());
}
