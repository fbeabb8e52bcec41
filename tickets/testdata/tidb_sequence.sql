-- +goose NO TRANSACTION
-- Rendered by shardid: ticket sequence `tickets64`, increment 2, offset 2 (TiDB).

-- +goose Up
CREATE SEQUENCE IF NOT EXISTS `tickets64` START WITH 2 INCREMENT BY 2 MINVALUE 1 CACHE 500 NOCYCLE;

-- +goose Down
-- Nothing to undo: the sequence holds the last ticket drawn, and one made
-- anew would hand out the same tickets again. Drop it by hand only when no
-- ticket it issued is in use anywhere.
