"""Storage: SQLAlchemy models, engine and session setup, and Alembic migrations."""
