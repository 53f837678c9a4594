// Reading a real transcript as a support agent does: the ticket opens on a strip of what its
// calls came to and on its worst call; the system prompt is one line until asked for; a
// message of megabytes opens with its start and offers the rest.

#include "domain/registrychoice.h"
#include "foldedtext.h"
#include "import/transcriptimporter.h"
#include "itemmodels/escalationqueuemodel.h"
#include "itemmodels/ticketqueuemodel.h"
#include "itemmodels/transcriptmodel.h"
#include "mainwindow.h"
#include "messagecard.h"
#include "outcomebadge.h"
#include "outcomestyle.h"
#include "statusline.h"
#include "store/storefactory.h"
#include "ticketview.h"
#include "toolcallcard.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSet>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace verity;

class TestTicketReading : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_runs = 0;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<MainWindow> m_window;

    void openWith(const QString &file)
    {
        const QString path = m_dir.filePath(QStringLiteral("reading-%1.sqlite").arg(++m_runs));
        auto store = openStore(path);
        QVERIFY(store.ok());
        m_store = std::move(*store);
        TranscriptImporter importer(*m_store, automaticRegistries(QString()));
        const ImportReport report = importer.importFile(file);
        QVERIFY2(report.clean(), qPrintable(report.summary()));
        m_window = std::make_unique<MainWindow>(
                *m_store, path, RegistrySource{QString(), m_dir.filePath(QStringLiteral("registry.json"))});
        m_window->resize(1280, 800);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    qint64 ticketLike(const QString &prefix)
    {
        TicketQuery query;
        query.search = prefix;
        Expected<QList<TicketRow>> rows = m_store->tickets(query, 0, 5);
        return rows && !rows->isEmpty() ? rows->first().id : 0;
    }

private slots:
    void init() { QStandardPaths::setTestModeEnabled(true); }

    void cleanup()
    {
        m_window.reset();
        m_store.reset();
    }

    // The booking made twice: the strip names the duplicate, and the ticket opens on it.
    void opensOnTheDuplicate()
    {
        openWith(QStringLiteral(VERITY_TEST_DATA "/tau/tau-bench-v1-airline-same-answer.json"));
        const qint64 booking = ticketLike(QStringLiteral("tau-bench/task-5/"));
        QVERIFY(booking);
        m_window->openTicket(booking);
        TicketView *view = m_window->ticketView();
        auto *duplicate = view->findChild<QPushButton *>(QStringLiteral("summaryDuplicate"));
        QVERIFY(duplicate);
        QCOMPARE(duplicate->text(), QStringLiteral("Duplicate effect: call_t5_b"));
        auto *writes = view->findChild<QLabel *>(QStringLiteral("summaryWrites"));
        QCOMPARE(writes->text(), QStringLiteral("2 writes: 2 performed"));
        QTRY_VERIFY(view->card(QStringLiteral("call_t5_b"))->isHighlighted());
        // The card names the booking that took effect first.
        auto *repeat =
                view->card(QStringLiteral("call_t5_b"))->findChild<QLabel *>(QStringLiteral("repeatNotice"));
        QVERIFY2(repeat->text().contains(QStringLiteral("repeats call call_t5_a")),
                 qPrintable(repeat->text()));
        QTRY_VERIFY(!view->card(QStringLiteral("call_t5_b"))->visibleRegion().isEmpty());

        // The policy is one line until asked for.
        auto *system = view->findChild<MessageCard *>(QStringLiteral("messageCard_system"));
        QVERIFY(system);
        auto *text = system->findChild<QLabel *>(QStringLiteral("messageText"));
        QVERIFY(text->isHidden());
        auto *preview = system->findChild<QLabel *>(QStringLiteral("foldPreview"));
        QVERIFY2(preview->text().startsWith(QStringLiteral("# Airline Agent Policy")),
                 qPrintable(preview->text()));
        QTest::mouseClick(system->findChild<QToolButton *>(QStringLiteral("foldToggle")), Qt::LeftButton);
        QVERIFY(text->isVisible());
        QVERIFY(text->text().contains(QStringLiteral("book, modify, or cancel")));

        // The reservation updated to what it already was: harmless, and nothing to jump to.
        const qint64 update = ticketLike(QStringLiteral("tau-bench/task-4/"));
        m_window->openTicket(update);
        QVERIFY(!view->findChild<QPushButton *>(QStringLiteral("summaryDuplicate")));
        auto *harmless = view->findChild<QPushButton *>(QStringLiteral("summaryHarmless"));
        QVERIFY(harmless);
        QCOMPARE(harmless->text(), QStringLiteral("2 harmless repeats: call_t4_d, call_t4_e"));
        for (ToolCallCard *card : view->cards())
            QVERIFY(!card->isHighlighted());
        // Found its effect already there: "Already performed", not a second "Performed".
        QCOMPARE(view->card(QStringLiteral("call_t4_d"))->badge()->outcome(), Outcome::AlreadyPerformed);
        // Each click brings the next of them into view, then the first again.
        QTest::mouseClick(harmless, Qt::LeftButton);
        QTRY_VERIFY(view->card(QStringLiteral("call_t4_d"))->isHighlighted());
        QTest::mouseClick(harmless, Qt::LeftButton);
        QTRY_VERIFY(view->card(QStringLiteral("call_t4_e"))->isHighlighted());
        QVERIFY(!view->card(QStringLiteral("call_t4_d"))->isHighlighted());
        QTest::mouseClick(harmless, Qt::LeftButton);
        QTRY_VERIFY(view->card(QStringLiteral("call_t4_d"))->isHighlighted());
    }

    // Search: bare text is a beginning ("task 5" also finds "task 51"); in quotes, the value
    // whole, and for a task, that task in any trial.
    void quotedSearchIsTheWholeValue()
    {
        openWith(QStringLiteral(VERITY_TEST_DATA "/tau/tau2-gpt-4.1-retail.json"));
        const auto count = [this](const QString &search) {
            TicketQuery query;
            query.search = search;
            return m_store->countTickets(query).value();
        };
        // The file has tasks 5, 51, 53, 55 and 56.
        QCOMPARE(count(QStringLiteral("task 5")), 5);
        QCOMPARE(count(QStringLiteral("\"task 5\"")), 1);
        QCOMPARE(count(QStringLiteral("\"TASK 5 · TRIAL 0\"")), 1);
        QCOMPARE(count(QStringLiteral("\"task 5 · trial 1\"")), 0);
        QCOMPARE(count(QStringLiteral("\"task\"")), 0);
    }

    // A refund whose amount is no money (-1800 cents): refused, it moved nothing and the card
    // says so; taken, no total counts it, the card says where to read it, and the ticket needs a look.
    void anAmountThatIsNoMoneyIsFlagged()
    {
        QFile demo(QStringLiteral(VERITY_TEST_DATA "/../../resources/demo/march-incident.jsonl"));
        QVERIFY(demo.open(QIODevice::ReadOnly));
        QByteArrayList refused;
        for (const QByteArray &line : demo.readAll().split('\n')) {
            if (line.contains("\"ticket\":\"T-20260320-0114\""))
                refused << line;
        }
        QVERIFY(refused.size() > 4);
        QByteArrayList taken;
        for (QByteArray line : refused) {
            if (line.contains("\"call_id\":\"c3\"") && line.contains("\"tool_result\""))
                line = R"({"type":"tool_result","ticket":"T-20260320-0114","at":"2026-03-20T09:31:36.290Z","call_id":"c3","result":{"refund_id":"re_neg1","status":"queued","amount_cents":-1800},"duration_ms":260})";
            taken << line;
        }
        const auto writeFile = [this](const QString &name, const QByteArrayList &lines) {
            QFile file(m_dir.filePath(name));
            return file.open(QIODevice::WriteOnly) && file.write(lines.join('\n') + '\n') > 0;
        };
        QVERIFY(writeFile(QStringLiteral("refused.jsonl"), refused));
        QVERIFY(writeFile(QStringLiteral("taken.jsonl"), taken));

        openWith(m_dir.filePath(QStringLiteral("refused.jsonl")));
        qint64 ticket = ticketLike(QStringLiteral("T-20260320-0114"));
        QVERIFY(!m_store->ticket(ticket).value()->row.needsAttention);
        m_window->openTicket(ticket);
        auto *notice = m_window->ticketView()
                               ->card(QStringLiteral("c3"))
                               ->findChild<QLabel *>(QStringLiteral("amountNotice"));
        QVERIFY(notice);
        QVERIFY2(notice->text().contains(QStringLiteral("got -1800"))
                         && notice->text().contains(QStringLiteral("no money moved")),
                 qPrintable(notice->text()));

        openWith(m_dir.filePath(QStringLiteral("taken.jsonl")));
        ticket = ticketLike(QStringLiteral("T-20260320-0114"));
        QVERIFY(m_store->ticket(ticket).value()->row.needsAttention);
        m_window->openTicket(ticket);
        notice = m_window->ticketView()
                         ->card(QStringLiteral("c3"))
                         ->findChild<QLabel *>(QStringLiteral("amountNotice"));
        QVERIFY(notice);
        QVERIFY2(notice->text().contains(QStringLiteral("No total in Verity includes this write")),
                 qPrintable(notice->text()));
    }

    // At 1280x800 every column of the queue is in view: no sideways scroll bar hides the worst
    // outcome, and its badge still reads "Not performed" whole.
    void queueFitsASmallScreen()
    {
        openWith(QStringLiteral(VERITY_TEST_DATA "/tau/tau-bench-v1-gpt-4o-airline-excerpt.json"));
        auto *table = m_window->findChild<QTableView *>(QStringLiteral("ticketTable"));
        QVERIFY(table);
        QTRY_VERIFY(table->model()->rowCount() > 0);
        const int columns = table->model()->columnCount();
        const int right = table->columnViewportPosition(columns - 1) + table->columnWidth(columns - 1);
        QVERIFY2(right <= table->viewport()->width(),
                 qPrintable(QStringLiteral("columns end at %1, the view at %2")
                                    .arg(right)
                                    .arg(table->viewport()->width())));
        QVERIFY(!table->horizontalScrollBar()->isVisible());
        QVERIFY(table->columnWidth(TicketQueueModel::OutcomeColumn)
                >= badgeSize(Outcome::NotPerformed, table->font()).width());

        // Wide, the columns have the room their values need, the seller any left over.
        m_window->resize(1920, 1080);
        QTRY_VERIFY(table->columnWidth(TicketQueueModel::OutcomeColumn)
                    >= badgeSize(Outcome::Unknown, table->font()).width());
        QVERIFY(table->columnWidth(TicketQueueModel::SellerColumn)
                >= table->fontMetrics().horizontalAdvance(QStringLiteral("Fenwick & Rowe Garden")));
    }

    // A tool's name sits beside its outcome at 1280x800: a short one on one line, a long one
    // wrapped after its underscores, never under the badge; read whole by its accessible name.
    // Ids longer than the demo's stay whole in both queues.
    void toolNamesWrapBesideTheirOutcome()
    {
        const QString file = m_dir.filePath(QStringLiteral("long-names.jsonl"));
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        const QString longName =
                QStringLiteral("exchange_delivered_order_items_and_refund_price_difference_to_gift_card");
        const auto line = [&out](const QJsonObject &object) {
            out.write(QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n');
        };
        const auto at = [](int second) {
            return QStringLiteral("2026-12-07T09:42:%1Z").arg(second, 2, 10, QChar(u'0'));
        };
        line({{QStringLiteral("type"), QStringLiteral("ticket_opened")},
              {QStringLiteral("ticket"), QStringLiteral("B0035-T-20261207-0950")},
              {QStringLiteral("at"), at(0)},
              {QStringLiteral("order"),
               QJsonObject{{QStringLiteral("id"), QStringLiteral("SU-88421-R2")},
                           {QStringLiteral("items"), QJsonArray()}}},
              {QStringLiteral("seller"),
               QJsonObject{{QStringLiteral("id"), QStringLiteral("s9")},
                           {QStringLiteral("name"), QStringLiteral("Nine")}}}});
        int second = 1;
        for (const QString &tool : {longName, QStringLiteral("issue_refund")}) {
            const QString id = QStringLiteral("c%1").arg(second);
            line({{QStringLiteral("type"), QStringLiteral("tool_call")},
                  {QStringLiteral("ticket"), QStringLiteral("B0035-T-20261207-0950")},
                  {QStringLiteral("at"), at(second)},
                  {QStringLiteral("call_id"), id},
                  {QStringLiteral("tool"), tool},
                  {QStringLiteral("arguments"),
                   QJsonObject{{QStringLiteral("order_id"), QStringLiteral("SU-88421-R2")},
                               {QStringLiteral("amount_cents"), 500 + second}}}});
            line({{QStringLiteral("type"), QStringLiteral("tool_result")},
                  {QStringLiteral("ticket"), QStringLiteral("B0035-T-20261207-0950")},
                  {QStringLiteral("at"), at(second + 10)},
                  {QStringLiteral("call_id"), id},
                  {QStringLiteral("result"),
                   QJsonObject{{QStringLiteral("error"), QStringLiteral("upstream timeout")}}}});
            ++second;
        }
        out.close();
        openWith(file);
        m_window->openTicket(ticketLike(QStringLiteral("B0035-T-20261207-0950")));
        // The ids, longer than the demo's, are whole in both queues, and the queue needs no
        // sideways scrolling for them.
        auto *queue = m_window->findChild<QTableView *>(QStringLiteral("ticketTable"));
        auto *escalations = m_window->findChild<QTableView *>(QStringLiteral("escalationTable"));
        QVERIFY(queue && escalations);
        const auto whole = [](QTableView *table, int column, const QString &id) {
            return table->columnWidth(column) >= table->fontMetrics().horizontalAdvance(id);
        };
        QTRY_VERIFY(whole(queue, TicketQueueModel::TicketColumn, QStringLiteral("B0035-T-20261207-0950")));
        QVERIFY(whole(queue, TicketQueueModel::OrderColumn, QStringLiteral("SU-88421-R2")));
        QVERIFY(!queue->horizontalScrollBar()->isVisible());
        QTRY_VERIFY(escalations->model()->rowCount() == 2);
        QVERIFY(whole(escalations, EscalationQueueModel::TicketColumn,
                      QStringLiteral("B0035-T-20261207-0950")));
        QVERIFY(whole(escalations, EscalationQueueModel::OrderColumn, QStringLiteral("SU-88421-R2")));
        TicketView *view = m_window->ticketView();
        for (const char *id : {"c1", "c2"}) {
            ToolCallCard *card = view->card(QString::fromLatin1(id));
            QVERIFY(card);
            auto *name = card->findChild<QLabel *>(QStringLiteral("toolName"));
            QVERIFY(name && card->badge());
            QTRY_VERIFY(name->isVisible() && card->badge()->isVisible());
            const QRect nameBox(name->mapTo(card, QPoint(0, 0)), name->size());
            const QRect badgeBox(card->badge()->mapTo(card, QPoint(0, 0)), card->badge()->size());
            QVERIFY2(!nameBox.intersects(badgeBox), id);
            const int lines = name->height() / name->fontMetrics().lineSpacing();
            if (QLatin1String(id) == QLatin1String("c1")) {
                QCOMPARE(name->accessibleName(), longName);
                QVERIFY2(lines >= 2, qPrintable(QString::number(lines)));
            } else {
                QCOMPARE(name->accessibleName(), QStringLiteral("issue_refund"));
                QCOMPARE(lines, 1);
            }
        }
    }

    // A message longer than the room the counters leave at 1280x800 ends in "…", and the
    // status bar's tooltip holds it whole; a short one shows as it is.
    void aLongStatusMessageEndsInAnEllipsis()
    {
        openWith(QStringLiteral(VERITY_TEST_DATA "/tau/tau-bench-v1-gpt-4o-airline-excerpt.json"));
        auto *line = qobject_cast<StatusLine *>(m_window->statusBar());
        QVERIFY(line);
        const QString longer =
                QStringLiteral("Recorded as not performed (attested) by amira. The write is still "
                               "owed: perform it with the same key, or record a check that it "
                               "was done, once the courier's portal shows the collection again.");
        line->showMessage(longer, 15000);
        QVERIFY2(line->shownMessage().endsWith(QChar(0x2026)), qPrintable(line->shownMessage()));
        QVERIFY(line->shownMessage().size() < longer.size());
        QCOMPARE(line->toolTip(), longer);
        line->showMessage(QStringLiteral("Saved."), 15000);
        QCOMPARE(line->shownMessage(), QStringLiteral("Saved."));
        line->clearMessage();
        QVERIFY(line->toolTip().isEmpty());
    }

    // Ids are what people type and compare: at 1280x800 the first ten rows show each ticket and
    // order id whole, and the open ticket's row is the highlighted one.
    void idsWholeOnASmallScreen()
    {
        openWith(QStringLiteral(VERITY_TEST_DATA "/../../resources/demo/march-incident.jsonl"));
        auto *table = m_window->findChild<QTableView *>(QStringLiteral("ticketTable"));
        QVERIFY(table);
        QTRY_VERIFY(table->model()->rowCount() >= 10);
        QVERIFY(!table->horizontalScrollBar()->isVisible());
        const QFontMetrics metrics = table->fontMetrics();
        for (int row = 0; row < 10; ++row) {
            for (int column : {int(TicketQueueModel::TicketColumn), int(TicketQueueModel::OrderColumn)}) {
                const QString id = table->model()->index(row, column).data().toString();
                QVERIFY2(metrics.horizontalAdvance(id) + 8 <= table->columnWidth(column),
                         qPrintable(QStringLiteral("%1 needs %2 pixels, its column has %3")
                                            .arg(id)
                                            .arg(metrics.horizontalAdvance(id))
                                            .arg(table->columnWidth(column))));
            }
        }
        // Ten rows in view on a first start, beside the escalation queue's.
        QVERIFY2(table->rowAt(table->viewport()->height() - 1) >= 9,
                 qPrintable(QString::number(table->viewport()->height())));
        auto *escalations = m_window->findChild<QTableView *>(QStringLiteral("escalationTable"));
        QVERIFY(escalations);
        QTRY_VERIFY(escalations->model()->rowCount() > 0);
        QCOMPARE(escalations->model()
                         ->headerData(EscalationQueueModel::NumberColumn, Qt::Horizontal)
                         .toString(),
                 QStringLiteral("#"));
        QCOMPARE(escalations->model()->index(0, EscalationQueueModel::NumberColumn).data().toLongLong(),
                 escalations->model()->index(0, 0).data(EscalationQueueModel::EscalationIdRole).toLongLong());
        QCOMPARE(escalations->model()->index(0, EscalationQueueModel::CallColumn).data().toString(),
                 QStringLiteral("c3"));
        QCOMPARE(escalations->model()->index(0, EscalationQueueModel::OrderColumn).data().toString(),
                 QStringLiteral("SU-88421"));
        // Seven escalations in view on a first start, without dragging.
        QVERIFY2(escalations->viewport()->height() >= 6 * escalations->rowHeight(0),
                 qPrintable(QString::number(escalations->viewport()->height())));
    }

    // The highlighted row is always the open ticket's, whichever way the list or the open ticket
    // changes; where the open ticket is not in the list, nothing is highlighted and the count says so.
    void highlightIsTheOpenTicket()
    {
        openWith(QStringLiteral(VERITY_TEST_DATA "/../../resources/demo/march-incident.jsonl"));
        auto *table = m_window->findChild<QTableView *>(QStringLiteral("ticketTable"));
        auto *title = m_window->findChild<QLabel *>(QStringLiteral("ticketTitle"));
        auto *count = m_window->findChild<QLabel *>(QStringLiteral("ticketCount"));
        auto *search = m_window->findChild<QLineEdit *>(QStringLiteral("ticketSearch"));
        QVERIFY(table && title && count && search);
        const auto highlighted = [table] {
            const QModelIndexList rows =
                    table->selectionModel()->selectedRows(TicketQueueModel::TicketColumn);
            return rows.size() == 1 ? rows.first().data().toString() : QString();
        };
        const auto open = [title] { return title->text().section(QStringLiteral(" · "), 0, 0); };
        const auto filter = [this](TicketFilter which) {
            m_window->findChild<QAbstractButton *>(QStringLiteral("filter_%1").arg(int(which)))->click();
        };

        m_window->openTicket(ticketLike(QStringLiteral("\"T-20260317-0412\"")));
        QTRY_COMPARE(open(), QStringLiteral("T-20260317-0412"));
        QTRY_COMPARE(highlighted(), open());
        // A filter that keeps it: still its row.
        filter(TicketFilter::Unknown);
        QTRY_COMPARE(highlighted(), open());
        // A search that leaves it out: no row is highlighted, and the count tells why.
        search->setFocus();
        QTest::keyClicks(search, QStringLiteral("\"T-20260319-0187\""));
        QTRY_COMPARE(table->model()->rowCount(), 1);
        QCOMPARE(highlighted(), QString());
        QVERIFY2(count->text().contains(QLatin1String("the open ticket is not among these rows")),
                 qPrintable(count->text()));
        // Opening another ticket (as Ctrl+N or a link does) while the search holds: its row if listed.
        m_window->openTicket(ticketLike(QStringLiteral("\"T-20260319-0187\"")));
        QTRY_COMPARE(open(), QStringLiteral("T-20260319-0187"));
        QTRY_COMPARE(highlighted(), open());
        QVERIFY(!count->text().contains(QLatin1String("not among")));
        // The search cleared: the whole list, the same ticket highlighted.
        search->clear();
        filter(TicketFilter::All);
        QTRY_COMPARE(table->model()->rowCount(), 46);
        QTRY_COMPARE(highlighted(), open());
    }

    // Every shortcut the README names is the window's, and works with the search box focused
    // (a line edit would otherwise take Ctrl+E and Ctrl+K for itself); Down there goes into the
    // list; wherever the keys go, the table holding them is framed.
    void shortcutsWorkFromTheSearchBox()
    {
        openWith(QStringLiteral(VERITY_TEST_DATA "/../../resources/demo/march-incident.jsonl"));
        QFile readme(QStringLiteral(VERITY_TEST_DATA "/../../README.md"));
        QVERIFY(readme.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(readme.readAll());
        QSet<QString> named;
        static const QRegularExpression shortcut(QStringLiteral("\\bCtrl\\+(?:Shift\\+)?[A-Z0-9]\\b"));
        for (auto it = shortcut.globalMatch(text); it.hasNext();)
            named.insert(it.next().captured(0));
        QVERIFY(named.size() >= 10);
        QSet<QString> bound;
        for (const QAction *action : m_window->findChildren<QAction *>()) {
            for (const QKeySequence &keys : action->shortcuts())
                bound.insert(keys.toString(QKeySequence::PortableText));
        }
        for (int filter = 2; filter <= 5; ++filter) // "Ctrl+1 to Ctrl+6"
            named.insert(QStringLiteral("Ctrl+%1").arg(filter));
        named.remove(QStringLiteral("Ctrl+S")); // the replay window's: a note on a step
        for (const QString &keys : std::as_const(named))
            QVERIFY2(bound.contains(keys),
                     qPrintable(keys + QStringLiteral(" is in the README but no action's")));

        auto *search = m_window->findChild<QLineEdit *>(QStringLiteral("ticketSearch"));
        auto *tickets = m_window->findChild<QTableView *>(QStringLiteral("ticketTable"));
        auto *escalations = m_window->findChild<QTableView *>(QStringLiteral("escalationTable"));
        QVERIFY(search && tickets && escalations);
        const auto fromSearch = [&](QKeyCombination keys) {
            search->setFocus();
            QTRY_VERIFY(search->hasFocus());
            QTest::keyClick(search, keys.key(), keys.keyboardModifiers());
        };
        QTest::keyClicks(search, QStringLiteral("T-2026032"));
        fromSearch(Qt::CTRL | Qt::Key_E);
        QTRY_VERIFY(escalations->hasFocus());
        QCOMPARE(search->text(), QStringLiteral("T-2026032")); // not the field's "end of line"
        QVERIFY(escalations->styleSheet().contains(QLatin1String(":focus")));
        fromSearch(Qt::CTRL | Qt::Key_L);
        QTRY_VERIFY(tickets->hasFocus());
        fromSearch(Qt::CTRL | Qt::Key_3);
        QTRY_VERIFY(m_window->findChild<QAbstractButton *>(
                                    QStringLiteral("filter_%1").arg(int(TicketFilter::Unknown)))
                            ->isChecked());
        fromSearch(Qt::CTRL | Qt::SHIFT | Qt::Key_A);
        QTRY_VERIFY(m_window->findChild<QWidget *>(QStringLiteral("verifyChainButton"))->isVisible());
        fromSearch(Qt::CTRL | Qt::Key_1);
        QTRY_VERIFY(tickets->model()->rowCount() > 1);
        // Down: into the list, the open ticket's row if listed, else the first chosen.
        fromSearch(Qt::Key_Down);
        QTRY_VERIFY(tickets->hasFocus());
        QCOMPARE(tickets->selectionModel()->selectedRows().size(), 1);
    }

    // A 5 MB customer message: the ticket opens with its first part, and "Show all" reads the rest.
    void hugeMessageOpensWithItsStart()
    {
        const QString file = m_dir.filePath(QStringLiteral("huge.jsonl"));
        const QString message = QStringLiteral("Shelf cracked. ") + QString(5'000'000, u'x');
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        const QJsonArray messages{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                              {QStringLiteral("content"), message}}};
        out.write(QJsonDocument(QJsonObject{{QStringLiteral("id"), QStringLiteral("HUGE-1")},
                                            {QStringLiteral("messages"), messages}})
                          .toJson(QJsonDocument::Compact)
                  + '\n');
        out.close();
        openWith(file);
        m_window->openTicket(ticketLike(QStringLiteral("HUGE-1")));
        auto *card = m_window->ticketView()->findChild<MessageCard *>(QStringLiteral("messageCard_customer"));
        QVERIFY(card);
        auto *text = card->findChild<QLabel *>(QStringLiteral("messageText"));
        QVERIFY(text->text().size() <= TranscriptModel::openingTextLimit + 2);
        QVERIFY(text->text().startsWith(QStringLiteral("Shelf cracked. xxx")));
        auto *all = card->findChild<QPushButton *>(QStringLiteral("showAllButton"));
        QVERIFY(all);
        QCOMPARE(all->text(), QStringLiteral("Show all (5.0 MB)"));
        QTest::mouseClick(all, Qt::LeftButton);
        QPlainTextEdit *whole = nullptr;
        QTRY_VERIFY((whole = m_window->findChild<QPlainTextEdit *>(QStringLiteral("wholeText"))));
        // The whole text, broken into lines a view can lay out, and nothing else added.
        QCOMPARE(whole->toPlainText().remove(u'\n'), message);
    }
};

QTEST_MAIN(TestTicketReading)
#include "tst_ticketreading.moc"
