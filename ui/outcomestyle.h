#pragma once
// How each outcome looks: colour, icon and words together, never colour alone. Shared by the
// badge on a tool-call card and the outcome column of the ticket queue, where a duplicate
// effect, worse than any outcome, has a look of its own.

#include "domain/outcome.h"
#include "domain/ticketassessment.h"

#include <QColor>
#include <QPixmap>
#include <QString>

#include <optional>

class QPainter;
class QRect;
class QFont;

namespace verity {

struct OutcomeLook
{
    QColor background;
    QColor foreground;
    QString iconResource;
    QString label;
    QString shortLabel; // where the label does not fit; empty: elide the label
    bool bold = false; // the states that must not be missed
    bool dashed = false; // a person's check, not the system's word: outlined in dashes
};

OutcomeLook outcomeLook(std::optional<Outcome> outcome); // nullopt: "No writes"
OutcomeLook duplicateEffectLook();
// A write whose result may still come: no outcome yet, dashed like a state that will change.
OutcomeLook inFlightLook();
// An outcome a person attested: its look, marked "(attested)" in words and with a dashed edge.
OutcomeLook attestedLook(Outcome outcome);
// An outcome id, "duplicate_effect", or empty for a ticket without writes.
OutcomeLook lookForId(const QString &id);
QPixmap outcomeIcon(std::optional<Outcome> outcome, int size, qreal devicePixelRatio = 1.0);
QPixmap attentionIcon(int size, qreal devicePixelRatio = 1.0);
// The icon and colour of a ticket's worst state, for the queue's Attention column; a null
// pixmap for the states that need nobody (performed, not performed, no writes).
QPixmap ticketStateIcon(TicketState state, int size, qreal devicePixelRatio = 1.0);
QColor ticketStateColor(TicketState state);

// The badge's natural size for `font`, and the badge itself painted into `rect`.
QSize badgeSize(const OutcomeLook &look, const QFont &font);
void paintBadge(QPainter &painter, const QRect &rect, OutcomeLook look);
QSize badgeSize(std::optional<Outcome> outcome, const QFont &font);
void paintBadge(QPainter &painter, const QRect &rect, std::optional<Outcome> outcome);

} // namespace verity
