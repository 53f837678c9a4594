#include "ticketview.h"

#include "accessibletext.h"
#include "domain/displaytext.h"
#include "domain/hiddencharacters.h"
#include "domain/money.h"
#include "foldedtext.h"
#include "import/transcriptformat.h"
#include "itemmodels/transcriptmodel.h"
#include "itemmodels/transcriptsummary.h"
#include "messagecard.h"
#include "plaintextlabel.h"
#include "screenfit.h"
#include "theme.h"
#include "ticketsummarystrip.h"
#include "toolcallcard.h"

#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QTimer>
#include <QVBoxLayout>

namespace verity {

namespace {

// A text as lines of at most a few thousand characters: a plain-text view lays out a line
// whole, and a 50 MB message on one line would hold the window for minutes. Only where a
// line is that long does a break go in, after a space where there is one near.
QString inShortLines(const QString &text)
{
    constexpr qsizetype longest = 4000;
    QString out;
    out.reserve(text.size() + text.size() / longest + 1);
    qsizetype lineStart = 0;
    for (qsizetype at = 0; at < text.size();) {
        const qsizetype newline = text.indexOf(u'\n', at);
        const qsizetype end = newline < 0 ? text.size() : newline;
        while (end - lineStart > longest) {
            qsizetype cut = lineStart + longest;
            const qsizetype space = text.lastIndexOf(u' ', cut);
            if (space > lineStart + longest / 2)
                cut = space + 1;
            else if (text.at(cut - 1).isHighSurrogate())
                --cut;
            out += QStringView(text).mid(lineStart, cut - lineStart);
            out += u'\n';
            lineStart = cut;
        }
        out += QStringView(text).mid(lineStart, end - lineStart);
        if (newline < 0)
            break;
        out += u'\n';
        at = lineStart = newline + 1;
    }
    return out;
}

// The order and its items, the seller and balance, the customer, and when it opened: or, for a
// transcript that names no order, where it came from.
QString ticketFacts(const TicketDetail &detail)
{
    const TicketRow &row = detail.row;
    QStringList items;
    for (const OrderItemRecord &item : detail.order.items)
        items << QStringLiteral("%1 × %2 (%3)")
                         .arg(item.quantity)
                         .arg(item.title.isEmpty() ? item.id : item.title,
                              formatMoney(item.amountCents, detail.order.currency));
    QStringList context{TicketView::tr("Imported from %1; the transcript names no order or seller")
                                .arg(transcriptFormatName(row.sourceFormat))};
    for (const QString &part : {row.task, row.origin}) {
        if (!part.isEmpty())
            context << part;
    }
    // An order only the calls named has no items on record, and may have no seller yet.
    QString facts = row.orderId.isEmpty() ? context.join(QStringLiteral(" · "))
            : items.isEmpty()
            ? TicketView::tr("Order %1 (named by the ticket's tool calls)\nSeller: %2")
                      .arg(row.orderId,
                           row.sellerName.isEmpty() ? TicketView::tr("not named") : row.sellerName)
            : TicketView::tr("Order %1: %2\nSeller: %3")
                      .arg(row.orderId, items.join(QStringLiteral(", ")), row.sellerName);
    if (detail.sellerBalanceCents)
        facts += TicketView::tr(", balance %1 on %2")
                         .arg(formatMoney(*detail.sellerBalanceCents, detail.order.currency),
                              formatTime(detail.sellerBalanceAsOf));
    if (!detail.order.customerName.isEmpty())
        facts += TicketView::tr("\nCustomer: %1").arg(detail.order.customerName);
    const QString writes =
            row.writeCount == 1 ? TicketView::tr("1 write") : TicketView::tr("%1 writes").arg(row.writeCount);
    QString opened = formatTime(row.openedAt);
    if (row.dating == TicketDating::FileDate)
        opened += TicketView::tr(" (the file's date: the transcript has no times of its own)");
    else if (row.dating == TicketDating::FileModified)
        opened += TicketView::tr(" (when the file was last changed: the transcript has no times)");
    facts += TicketView::tr("\nOpened %1 · %2").arg(opened, writes);
    return facts;
}

} // namespace

TicketView::TicketView(TranscriptModel &model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 0);
    m_title = plainTextLabel(tr("No ticket open"), this);
    m_title->setObjectName(QStringLiteral("ticketTitle"));
    m_title->setAccessibleDescription(tr("The open ticket"));
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_facts = plainTextLabel(
            tr("Choose a ticket in the queue, or an unknown outcome in the escalation queue."), this);
    m_facts->setObjectName(QStringLiteral("ticketFacts"));
    m_facts->setAccessibleDescription(tr("The open ticket's order, seller and customer"));
    m_summary = new TicketSummaryStrip(this);
    layout->addWidget(m_title);
    layout->addWidget(m_facts);
    layout->addWidget(m_summary);
    connect(m_summary, &TicketSummaryStrip::callChosen, this, &TicketView::showCall);

    m_scroll = new QScrollArea(this);
    m_scroll->setObjectName(QStringLiteral("transcript"));
    describeForScreenReaders(
            m_scroll, tr("Transcript"),
            tr("The ticket's messages and tool calls in time order, each call with its outcome"));
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_content = new QWidget;
    m_content->setObjectName(QStringLiteral("transcriptContent"));
    m_content->setStyleSheet(theme::transcriptPage(m_content->objectName()));
    m_entries = new QVBoxLayout(m_content);
    m_entries->setContentsMargins(theme::transcriptSpacing, theme::transcriptSpacing,
                                  theme::transcriptSpacing, theme::transcriptSpacing);
    m_entries->setSpacing(theme::transcriptSpacing);
    m_entries->addStretch();
    m_scroll->setWidget(m_content);
    layout->addWidget(m_scroll, 1);

    connect(&m_model, &QAbstractItemModel::modelReset, this, &TicketView::rebuild);
    rebuild();
}

QList<ToolCallCard *> TicketView::cards() const
{
    return m_content->findChildren<ToolCallCard *>();
}

void TicketView::rebuild()
{
    // The same ticket read again (a settlement, a refresh): the person stays where they were.
    const qint64 ticket = m_model.detail() ? m_model.detail()->row.id : 0;
    const bool sameTicket = ticket != 0 && ticket == m_shownTicket;
    const int scrolled = m_scroll->verticalScrollBar()->value();
    const QString highlighted = m_highlighted;
    m_shownTicket = ticket;
    m_cards.clear();
    m_highlighted.clear();
    while (m_entries->count() > 1) {
        QLayoutItem *item = m_entries->takeAt(0);
        delete item->widget();
        delete item;
    }

    const std::optional<TicketDetail> &detail = m_model.detail();
    if (!detail) {
        m_summary->clear();
        m_title->setText(tr("No ticket open"));
        m_facts->setText(tr("Choose a ticket in the queue, or an unknown outcome in the escalation queue."));
        return;
    }
    const TicketRow &row = detail->row;
    // A trace without messages has its id for a subject: said once.
    const QString name = ticketName(row.extId, row.orderId);
    // Names and subjects come from the agent's data: a right-to-left override or an escape in
    // them is shown as its code, never let to turn the rest of the line around.
    m_title->setText(visibleText(row.subject.isEmpty() || row.subject == row.extId
                                         ? name
                                         : QStringLiteral("%1 · %2").arg(name, row.subject)));
    m_title->setToolTip(name == row.extId ? QString() : row.extId);
    m_facts->setText(visibleText(ticketFacts(*detail), LineBreaks::Allowed));
    const TranscriptSummary summary = m_model.summary();
    m_summary->setSummary(summary);

    for (int i = 0; i < m_model.rowCount(); ++i) {
        const TranscriptEntry *entry = m_model.entry(i);
        if (entry->isToolCall)
            m_entries->insertWidget(m_entries->count() - 1, makeCallCard(entry->call));
        else
            m_entries->insertWidget(m_entries->count() - 1, makeMessageCard(*entry));
    }
    if (!sameTicket) {
        // A ticket opens on what matters: its duplicate effect, else its unknown, else a repeat.
        m_scroll->verticalScrollBar()->setValue(0);
        if (std::optional<QString> first = summary.firstToShow())
            showCall(*first);
        return;
    }
    if (ToolCallCard *card = m_cards.value(highlighted)) {
        card->setHighlighted(true);
        m_highlighted = highlighted;
    }
    QTimer::singleShot(0, this, [this, scrolled] {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        m_scroll->verticalScrollBar()->setValue(scrolled);
    });
}

ToolCallCard *TicketView::makeCallCard(const ToolCallRow &call)
{
    auto *card = new ToolCallCard(call, m_actions ? m_actions(call) : CallActions{}, m_content);
    connect(card, &ToolCallCard::showCallRequested, this, &TicketView::showCall);
    connect(card, &ToolCallCard::lookupRequested, this, &TicketView::lookupRequested);
    connect(card, &ToolCallCard::performAgainRequested, this, &TicketView::performAgainRequested);
    connect(card, &ToolCallCard::attestRequested, this, &TicketView::attestRequested);
    connect(card, &ToolCallCard::evidenceRequested, this, &TicketView::evidenceRequested);
    connect(card, &ToolCallCard::showAllRequested, this,
            [this, id = call.id, callId = call.callExtId](TextPlace::Part part) {
                showWholeText(TextPlace{part, 0, id},
                              part == TextPlace::Part::Arguments ? tr("Arguments of call %1").arg(callId)
                                                                 : tr("Result of call %1").arg(callId));
            });
    m_cards.insert(call.callExtId, card);
    return card;
}

MessageCard *TicketView::makeMessageCard(const TranscriptEntry &entry)
{
    auto *message = new MessageCard(entry.kind, entry.at, entry.text, entry.clippedBytes, m_content);
    connect(message, &MessageCard::showAllRequested, this, [this, seq = entry.seq] {
        showWholeText(TextPlace{TextPlace::Part::Message, seq, 0}, tr("Message"));
    });
    return message;
}

void TicketView::showWholeText(const TextPlace &place, const QString &title)
{
    Expected<QString> text = m_model.wholeText(place);
    if (!text) {
        QMessageBox::warning(this, tr("Show all"),
                             tr("The whole text cannot be read: %1").arg(text.message()));
        return;
    }
    // A plain-text editor, read only: it lays out only what is on screen, so 50 MB opens.
    auto *window = new QDialog(this);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->setWindowTitle(tr("%1 (%2)").arg(title, byteSizeText(text->toUtf8().size())));
    window->setObjectName(QStringLiteral("wholeTextWindow"));
    auto *layout = new QVBoxLayout(window);
    auto *view = new QPlainTextEdit(window);
    view->setObjectName(QStringLiteral("wholeText"));
    view->setReadOnly(true);
    view->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    view->setPlainText(inShortLines(*text));
    layout->addWidget(view);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, window);
    connect(buttons, &QDialogButtonBox::rejected, window, &QDialog::close);
    describeStandardButtons(buttons);
    layout->addWidget(buttons);
    fitToScreen(*window, QSize(900, 700));
    window->show();
}

void TicketView::setCallActions(std::function<CallActions(const ToolCallRow &)> actions)
{
    m_actions = std::move(actions);
    rebuild();
}

std::optional<qint64> TicketView::openEscalationInFront() const
{
    std::optional<qint64> first;
    for (int i = 0; i < m_model.rowCount(); ++i) {
        const TranscriptEntry *entry = m_model.entry(i);
        if (!entry->isToolCall || !entry->call.escalationId
            || entry->call.escalationState != EscalationState::Open)
            continue;
        if (!m_highlighted.isEmpty() && entry->call.callExtId == m_highlighted)
            return entry->call.escalationId;
        if (!first)
            first = entry->call.escalationId;
    }
    return first;
}

void TicketView::showCall(const QString &callId)
{
    ToolCallCard *target = m_cards.value(callId);
    if (!target)
        return;
    if (ToolCallCard *previous = m_cards.value(m_highlighted))
        previous->setHighlighted(false);
    target->setHighlighted(true);
    m_highlighted = callId;
    // Layouts settle on the next pass; then the card goes to the top, with what follows it
    // (the repeat, the reply) in view below.
    QTimer::singleShot(0, this, [this, callId] {
        if (ToolCallCard *card = m_cards.value(callId)) {
            // Cards made a moment ago have no place, and the scroll area no height, until the
            // pending layout requests run.
            QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
            m_scroll->verticalScrollBar()->setValue(card->y() - 8);
        }
    });
}

} // namespace verity
