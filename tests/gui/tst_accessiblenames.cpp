// A screen reader can be used: every widget a person can reach with the keyboard or the mouse,
// in the main window and in each of its dialogs, has an accessible name (what it is) and an
// accessible description (what it does or shows), as Qt's accessibility interface reports them.

#include "attestdialog.h"
#include "classifytoolsdialog.h"
#include "democonsole.h"
#include "evidencedialog.h"
#include "incidentreplaywindow.h"
#include "mainwindow.h"
#include "providersettingsdialog.h"
#include "resolutiondialog.h"
#include "support/teststore.h"
#include "typedconfirmation.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QAccessible>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace verity::test;

namespace {

// What a person can act on: it takes the focus, or it is a button or a list.
bool interactive(const QWidget *widget)
{
    if (qobject_cast<const QScrollBar *>(widget))
        return false; // its container is named; a screen reader reads the scroll position from it
    // The field inside a spin box or a combo box is the box itself to a screen reader.
    for (const QWidget *up = widget->parentWidget(); up; up = up->parentWidget()) {
        if (qobject_cast<const QAbstractSpinBox *>(up) || qobject_cast<const QComboBox *>(up))
            return false;
    }
    if (auto *area = qobject_cast<const QAbstractScrollArea *>(widget->parentWidget());
        area && area->viewport() == widget)
        return false; // the scroll area (a table, a chart) is what is named
    if (qobject_cast<const QHeaderView *>(widget))
        return false; // a table's own accessible interface gives its column headers
    if (widget->inherits("QDockWidgetTitleButton"))
        return false; // Qt names the dock's own float and close buttons
    return widget->focusPolicy() != Qt::NoFocus || qobject_cast<const QAbstractButton *>(widget)
            || qobject_cast<const QAbstractItemView *>(widget);
}

QString describe(const QWidget *widget)
{
    QString where;
    for (const QWidget *up = widget->parentWidget(); up && where.isEmpty(); up = up->parentWidget())
        where = up->objectName();
    return QStringLiteral("%1 \"%2\" in \"%3\"")
            .arg(QLatin1String(widget->metaObject()->className()), widget->objectName(), where);
}

// Each interactive widget of `root` that is on screen, without a name or a description.
QStringList unnamed(QWidget *root)
{
    QStringList missing;
    QList<QWidget *> widgets = root->findChildren<QWidget *>();
    widgets.prepend(root);
    for (QWidget *widget : std::as_const(widgets)) {
        if (!widget->isVisible() || !interactive(widget) || widget->window() != root->window())
            continue;
        QAccessibleInterface *face = QAccessible::queryAccessibleInterface(widget);
        if (!face) {
            missing << describe(widget) + QStringLiteral(": no accessible interface");
            continue;
        }
        // A label's text is its name: one with none yet (a status before anything happened) has
        // nothing for a screen reader to read, and its text names it once it has.
        const auto *label = qobject_cast<const QLabel *>(widget);
        if (label && label->text().isEmpty())
            continue;
        if (face->text(QAccessible::Name).trimmed().isEmpty())
            missing << describe(widget) + QStringLiteral(": no name");
        // Qt's tab bar reports no description of its own (each tab is named by its text).
        if (face->text(QAccessible::Description).trimmed().isEmpty() && !qobject_cast<QTabBar *>(widget))
            missing << describe(widget) + QStringLiteral(": no description");
    }
    return missing;
}

// True when nothing in `root` lacks a name or a description; else each gap is printed.
bool allNamed(QWidget *root)
{
    const QStringList missing = unnamed(root);
    for (const QString &gap : missing)
        qWarning("%s", qPrintable(gap));
    return missing.isEmpty();
}

} // namespace

class AccessibleNamesTest : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void theMainWindowAndItsDocks();
    void providerSettings();
    void theLookupDialog();
    void theEvidenceDialog();
    void aRecordedCheck();
    void classifyingTools();
    void theIncidentReplay();
    void theTypedConfirmation();

private:
    QTemporaryDir m_dir;
    QString m_dbPath;
    std::unique_ptr<InProcessSandbox> m_sandbox;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<MainWindow> m_window;
};

void AccessibleNamesTest::initTestCase()
{
    m_dbPath = m_dir.filePath(QStringLiteral("console.sqlite"));
    const QString problem = openDemoWithSandbox(m_dbPath, m_store, m_sandbox);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    m_window = std::make_unique<MainWindow>(*m_store, m_dbPath, RegistrySource{});
    QVERIFY(m_window->provider().save(m_sandbox->url(), QStringLiteral("alice"), QString()));
    m_window->resize(1280, 800);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    m_window->openTicket(m_store->ticketIdByExtId(QStringLiteral("T-20260317-0412"))->value_or(0));
}

void AccessibleNamesTest::theMainWindowAndItsDocks()
{
    // Each dock in front in turn: a tab behind another is not on screen.
    for (const char *dock : {"escalationDock", "auditDock", "financeDock"}) {
        auto *widget = m_window->findChild<QDockWidget *>(QLatin1String(dock));
        QVERIFY(widget);
        widget->show();
        widget->raise();
        QApplication::processEvents();
        QVERIFY2(allNamed(m_window.get()), dock);
    }
    // And each of finance's tabs in turn.
    auto *financeTabs = m_window->findChild<QTabWidget *>(QStringLiteral("financeTabs"));
    QVERIFY(financeTabs);
    for (int tab = 0; tab < financeTabs->count(); ++tab) {
        financeTabs->setCurrentIndex(tab);
        QApplication::processEvents();
        QVERIFY2(allNamed(m_window.get()), qPrintable(financeTabs->tabText(tab)));
    }
}

void AccessibleNamesTest::providerSettings()
{
    ProviderSettingsDialog dialog(m_window->provider(), m_window.get());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    const bool named = allNamed(&dialog);
    QVERIFY(named);
}

void AccessibleNamesTest::theLookupDialog()
{
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260317-0412"), QStringLiteral("c3"));
    QVERIFY(id);
    ResolutionDialog *dialog = m_window->lookUp(id);
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    const bool named = allNamed(dialog);
    dialog->close();
    QVERIFY(named);
}

void AccessibleNamesTest::theEvidenceDialog()
{
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260319-0187"), QStringLiteral("c3"));
    QVERIFY(id);
    EvidenceDialog *dialog = m_window->showEvidence(id);
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    const bool named = allNamed(dialog);
    dialog->close();
    QVERIFY(named);
}

void AccessibleNamesTest::aRecordedCheck()
{
    // A pickup: no system of the sandbox's is asked for it, so a person's check is recorded.
    const qint64 id = openEscalationId(*m_store, QStringLiteral("T-20260401-0247"), QStringLiteral("c3"));
    QVERIFY(id);
    AttestDialog *dialog = m_window->attest(id);
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    const bool named = allNamed(dialog);
    dialog->close();
    QVERIFY(named);
}

void AccessibleNamesTest::classifyingTools()
{
    m_window->findChild<QAction *>(QStringLiteral("classifyToolsAction"))->trigger();
    ClassifyToolsDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = m_window->findChild<ClassifyToolsDialog *>()) && dialog->isVisible());
    const bool named = allNamed(dialog);
    dialog->close();
    QVERIFY(named);
}

void AccessibleNamesTest::theIncidentReplay()
{
    // Training > Replay incident (Ctrl+R) on the open ticket.
    for (QAction *action : m_window->findChildren<QAction *>()) {
        if (action->shortcut() == QKeySequence(QStringLiteral("Ctrl+R")))
            action->trigger();
    }
    IncidentReplayWindow *replay = nullptr;
    QTRY_VERIFY(replay = [] {
        for (QWidget *widget : QApplication::topLevelWidgets()) {
            if (auto *found = qobject_cast<IncidentReplayWindow *>(widget); found && found->isVisible())
                return found;
        }
        return static_cast<IncidentReplayWindow *>(nullptr);
    }());
    const bool named = allNamed(replay);
    replay->close();
    QVERIFY(named);
}

void AccessibleNamesTest::theTypedConfirmation()
{
    TypedConfirmation dialog(QStringLiteral("Send a refund of $118.00 with a live key?"),
                             QStringLiteral("$118.00"), m_window.get());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    const bool named = allNamed(&dialog);
    QVERIFY(named);
}

QTEST_MAIN(AccessibleNamesTest)
#include "tst_accessiblenames.moc"
