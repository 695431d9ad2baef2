//! Nearness among a recall's candidates, for changes whose subject only the vectors can say
//! (see the parent module): each statement's nearest on either side in time, and one older
//! statement per such change.

use std::cell::RefCell;
use std::collections::HashMap;

use rearview_core::MemoryId;

use super::Read;

/// A change whose subject only nearness says (`I got promoted to engineering manager`) is about
/// one older statement: of the candidates that read `newer` as their update so (`claims`, with
/// their cosines), it keeps the nearest, by `margin` over the next, and no other (none when two
/// are as near: which one it changes is unclear).
pub(super) fn one_subject(
    newer_of: &mut HashMap<MemoryId, Vec<MemoryId>>,
    newer: MemoryId,
    mut claims: Vec<(MemoryId, f32)>,
    margin: f32,
) {
    if claims.len() < 2 {
        return;
    }
    claims.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let keep = (claims[0].1 - claims[1].1 >= margin).then_some(claims[0].0);
    for (older, _) in claims.into_iter().filter(|(older, _)| Some(*older) != keep) {
        if let Some(found) = newer_of.get_mut(&older) {
            found.retain(|n| *n != newer);
            if found.is_empty() {
                newer_of.remove(&older);
            }
        }
    }
}

/// The side in time of a statement that [`Nearness`] looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Side {
    /// Statements that happened before it.
    Older,
    /// Statements that happened after it.
    Later,
    /// Every other statement, whenever it happened.
    Either,
}

/// Each statement's nearest statement of its tier by meaning among the candidates on one side
/// of it in time (or on either), if it is nearer than the next one there by `margin`; found
/// once per statement and side, and only when asked. Nearness is read by `closeness`: the raw
/// cosine `similarity`, or the cosine of centered vectors for the near tie.
pub(super) struct Nearness<'r, 'a, F, C> {
    read: &'r HashMap<MemoryId, Read<'a>>,
    candidates: &'r [MemoryId],
    similarity: &'r F,
    closeness: &'r C,
    margin: f32,
    runner_up: bool,
    found: RefCell<HashMap<(MemoryId, Side), Option<MemoryId>>>,
}

impl<'r, 'a, F, C> Nearness<'r, 'a, F, C>
where
    F: Fn(MemoryId, MemoryId) -> Option<f32>,
    C: Fn(MemoryId, MemoryId) -> Option<f32>,
{
    /// Over `candidates` (statements of `read`), cosines by `similarity`, the nearest by
    /// `closeness` with `margin`.
    pub(super) fn new(
        read: &'r HashMap<MemoryId, Read<'a>>,
        candidates: &'r [MemoryId],
        similarity: &'r F,
        closeness: &'r C,
        margin: f32,
    ) -> Self {
        let found = RefCell::default();
        Nearness { read, candidates, similarity, closeness, margin, runner_up: false, found }
    }

    /// The same, but a statement with a single candidate on its side has no nearest: nothing
    /// else was there to be nearer than by the margin.
    pub(super) fn with_runner_up(self) -> Self {
        Nearness { runner_up: true, ..self }
    }

    /// The statements, each with its reading.
    pub(super) fn read(&self) -> &'r HashMap<MemoryId, Read<'a>> {
        self.read
    }

    /// The candidates that are statements, in ranked order.
    pub(super) fn candidates(&self) -> &'r [MemoryId] {
        self.candidates
    }

    /// The cosine of two candidates (`None` without vectors).
    pub(super) fn similarity(&self, a: MemoryId, b: MemoryId) -> Option<f32> {
        (self.similarity)(a, b)
    }

    /// How near two candidates are by the measure the nearest are read by (`None` without
    /// vectors).
    pub(super) fn closeness(&self, a: MemoryId, b: MemoryId) -> Option<f32> {
        (self.closeness)(a, b)
    }

    /// Whether `that` is the nearest statement to `of` on `side` of it.
    pub(super) fn is(&self, of: MemoryId, side: Side, that: MemoryId) -> bool {
        let known = self.found.borrow().get(&(of, side)).copied();
        let nearest = known.unwrap_or_else(|| {
            let nearest = self.nearest(of, side);
            self.found.borrow_mut().insert((of, side), nearest);
            nearest
        });
        nearest == Some(that)
    }

    fn nearest(&self, of: MemoryId, side: Side) -> Option<MemoryId> {
        let this = &self.read[&of].statement;
        let mut near: Vec<(MemoryId, f32)> = self
            .candidates
            .iter()
            .filter(|other| **other != of)
            .filter(|other| {
                let other = &self.read[*other].statement;
                let on_side = match side {
                    Side::Older => other.occurred_at < this.occurred_at,
                    Side::Later => other.occurred_at > this.occurred_at,
                    Side::Either => true,
                };
                other.memory_type == this.memory_type && on_side
            })
            .filter_map(|other| Some((*other, (self.closeness)(of, *other)?)))
            .collect();
        near.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        match near.as_slice() {
            [] => None,
            [(best, _)] => (!self.runner_up).then_some(*best),
            [(best, a), (_, b), ..] => (a - b >= self.margin).then_some(*best),
        }
    }
}
