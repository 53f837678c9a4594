#include "ticketview.h"

#include "import/transcriptformat.h"

#include "domain/money.h"
#include "itemmodels/displaytext.h"
#include "itemmodels/transcriptmodel.h"
#include "messagecard.h"
#include "plaintextlabel.h"
#include "toolcallcard.h"

#include <QCoreApplication>
#include <QScrollArea>
#include <QScrollBar>
#include <QTimer>
#include <QVBoxLayout>

namespace verity {

TicketView::TicketView(TranscriptModel &model, QWidget *parent) : QWidget(parent), m_model(model)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 0);
    m_title = plainTextLabel(tr("No ticket open"), this);
    m_title->setObjectName(QStringLiteral("ticketTitle"));
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_facts = plainTextLabel(tr("Choose a ticket in the queue, or an unknown outcome in the escalation queue."), this);
    m_facts->setObjectName(QStringLiteral("ticketFacts"));
    layout->addWidget(m_title);
    layout->addWidget(m_facts);

    m_scroll = new QScrollArea(this);
    m_scroll->setObjectName(QStringLiteral("transcript"));
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_content = new QWidget;
    m_content->setObjectName(QStringLiteral("transcriptContent"));
    m_content->setStyleSheet(QStringLiteral("#transcriptContent { background: #eef0f3; }"));
    m_entries = new QVBoxLayout(m_content);
    m_entries->setContentsMargins(8, 8, 8, 8);
    m_entries->setSpacing(8);
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
        m_title->setText(tr("No ticket open"));
        m_facts->setText(tr("Choose a ticket in the queue, or an unknown outcome in the escalation queue."));
        return;
    }
    const TicketRow &row = detail->row;
    // A trace without messages has its id for a subject: said once.
    m_title->setText(row.subject.isEmpty() || row.subject == row.extId ? row.extId
                                                                       : QStringLiteral("%1 · %2").arg(row.extId, row.subject));
    QStringList items;
    for (const OrderItemRecord &item : detail->order.items)
        items << QStringLiteral("%1 × %2 (%3)")
                     .arg(item.quantity)
                     .arg(item.title.isEmpty() ? item.id : item.title, formatMoney(item.amountCents, detail->order.currency));
    QString facts = row.orderId.isEmpty()
            ? tr("Imported from %1; the transcript names no order or seller").arg(transcriptFormatName(row.sourceFormat))
            : tr("Order %1: %2\nSeller: %3").arg(row.orderId, items.join(QStringLiteral(", ")), row.sellerName);
    if (detail->sellerBalanceCents)
        facts += tr(", balance %1 on %2")
                     .arg(formatMoney(*detail->sellerBalanceCents, detail->order.currency),
                          formatTime(detail->sellerBalanceAsOf));
    if (!detail->order.customerName.isEmpty())
        facts += tr("\nCustomer: %1").arg(detail->order.customerName);
    const QString writes = row.writeCount == 1 ? tr("1 write") : tr("%1 writes").arg(row.writeCount);
    facts += tr("\nOpened %1 · %2").arg(formatTime(row.openedAt), writes);
    m_facts->setText(facts);

    for (int i = 0; i < m_model.rowCount(); ++i) {
        const TranscriptEntry *entry = m_model.entry(i);
        QWidget *widget = nullptr;
        if (entry->isToolCall) {
            auto *card = new ToolCallCard(entry->call, m_actions ? m_actions(entry->call) : CallActions{}, m_content);
            connect(card, &ToolCallCard::showCallRequested, this, &TicketView::showCall);
            connect(card, &ToolCallCard::lookupRequested, this, &TicketView::lookupRequested);
            connect(card, &ToolCallCard::performAgainRequested, this, &TicketView::performAgainRequested);
            connect(card, &ToolCallCard::attestRequested, this, &TicketView::attestRequested);
            connect(card, &ToolCallCard::evidenceRequested, this, &TicketView::evidenceRequested);
            m_cards.insert(entry->call.callExtId, card);
            widget = card;
        } else {
            widget = new MessageCard(entry->kind, entry->at, entry->text, m_content);
        }
        m_entries->insertWidget(m_entries->count() - 1, widget);
    }
    if (!sameTicket) {
        m_scroll->verticalScrollBar()->setValue(0);
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
        if (!entry->isToolCall || !entry->call.escalationId || entry->call.escalationState != u"open")
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
