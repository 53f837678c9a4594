#pragma once
// One ticket's transcript in time order: the messages, the replies and every tool call with
// its result, class, intent key and outcome. Small (a ticket's own events), so it is loaded
// whole when a ticket is opened.

#include "store/records.h"
#include "transcriptsummary.h"

#include <QAbstractListModel>

namespace verity {

class TicketReads;

class TranscriptModel : public QAbstractListModel
{
    Q_OBJECT

public:
    enum Role {
        IsToolCallRole = Qt::UserRole + 1,
        TimeRole, // ms since the epoch
        AuthorRole, // "customer", "agent", "system", "reply" for messages
        TextRole, // message text, plain
        ToolRole, // tool name
        ToolClassRole, // "write_money", ...
        ArgumentsRole, // JSON text
        RawResultRole, // JSON text, empty when there is none
        IntentKeyRole,
        OutcomeIdRole, // "performed", ... empty for reads
        RepeatedRole,
        RepeatedWithRole, // QStringList of call ids sharing the intent key
        EscalationIdRole, // qint64, or invalid
        CallIdRole,
    };

    // The longest text a ticket opens with, in characters: more than any screen shows, and a
    // 50 MB message or result costs no more than this to open. The rest is read on request.
    static constexpr qsizetype openingTextLimit = 20000;

    explicit TranscriptModel(TicketReads &store, QObject *parent = nullptr);
    // What the open ticket's calls come to (the strip it opens on).
    TranscriptSummary summary() const { return summarizeTranscript(m_entries); }
    // One text of the open ticket whole, when it came clipped.
    Expected<QString> wholeText(const TextPlace &place) const;

    // Loads the ticket; false (and errorOccurred) when it cannot be read.
    bool setTicket(qint64 ticketId);
    // Reads the open ticket again and resets only when something in it changed (another
    // console settled one of its calls, say): unchanged, the view keeps every widget as it is.
    void refreshIfChanged();
    void clear();
    qint64 ticketId() const { return m_detail ? m_detail->row.id : 0; }
    const std::optional<TicketDetail> &detail() const { return m_detail; }
    const TranscriptEntry *entry(int row) const;
    // The row of the tool call with `callId` in this ticket.
    std::optional<int> rowOfCall(const QString &callId) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

signals:
    void errorOccurred(const QString &message);

private:
    TicketReads &m_store;
    std::optional<TicketDetail> m_detail;
    QList<TranscriptEntry> m_entries;
};

} // namespace verity
